// Command otlpsink is a stand-in OTLP/HTTP profiles receiver for manual
// measurements (docs/fleet.md): the tests' receiver (package otlprecv)
// decodes every request sent to /v1development/profiles, answers 200,
// and on SIGINT or SIGTERM prints what it received: requests, bytes on
// the wire (gzipped as sent), samples (timestamps) and the sum of the values, per host.name
// and in total, and, with -burst COMM -at UNIXSECONDS, each host's share
// of COMM in the minute starting at that time. It is not Pyroscope.
//
//	go run ./internal/testkit/otlpsink -addr 127.0.0.1:4318
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	collectorpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"

	"flamekit/internal/testkit/otlprecv"
	"flamekit/pkg/interop/otlp"
)

type host struct {
	requests, bytes, points int64
	total                   int64
	minute, burst           int64 // values in the minute of -at, and COMM's
}

func main() {
	addr := flag.String("addr", "127.0.0.1:4318", "address to listen on")
	comm := flag.String("burst", "", "a process (the stacks' root frame) whose share of the -at minute to print per host")
	at := flag.Int64("at", 0, "with -burst: the minute's start, Unix seconds")
	flag.Parse()
	var mu sync.Mutex
	hosts := map[string]*host{}
	var first, last time.Time
	rcv := &otlprecv.Receiver{Path: otlp.Path, OnAccept: func(req *collectorpb.ExportProfilesServiceRequest, wire int) {
		d := req.GetDictionary()
		strs := d.GetStringTable()
		mu.Lock()
		defer mu.Unlock()
		now := time.Now()
		if first.IsZero() {
			first = now
		}
		last = now
		for _, rp := range req.GetResourceProfiles() {
			name := ""
			for _, kv := range rp.GetResource().GetAttributes() {
				if kv.GetKey() == otlp.AttrHost {
					name = kv.GetValue().GetStringValue()
				}
			}
			h := hosts[name]
			if h == nil {
				h = &host{}
				hosts[name] = h
			}
			h.requests++
			h.bytes += int64(wire)
			for _, sp := range rp.GetScopeProfiles() {
				for _, p := range sp.GetProfiles() {
					for _, s := range p.GetSamples() {
						locs := d.GetStackTable()[s.GetStackIndex()].GetLocationIndices()
						root := ""
						if len(locs) > 0 {
							fn := d.GetFunctionTable()[d.GetLocationTable()[locs[len(locs)-1]].GetLines()[0].GetFunctionIndex()]
							root = strs[fn.GetNameStrindex()]
						}
						for i, v := range s.GetValues() {
							h.points++
							h.total += v
							if ts := s.GetTimestampsUnixNano(); *comm != "" && len(ts) > i {
								if sec := int64(ts[i] / 1e9); sec >= *at && sec < *at+60 {
									h.minute += v
									if root == *comm {
										h.burst += v
									}
								}
							}
						}
					}
				}
			}
		}
	}}
	srv := &http.Server{Addr: *addr, Handler: rcv}
	go func() {
		if err := srv.ListenAndServe(); err != http.ErrServerClosed {
			log.Fatal(err)
		}
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	srv.Close()
	mu.Lock()
	defer mu.Unlock()
	names := make([]string, 0, len(hosts))
	var all host
	for n, h := range hosts {
		names = append(names, n)
		all.requests += h.requests
		all.bytes += h.bytes
		all.points += h.points
		all.total += h.total
	}
	slices.Sort(names)
	for _, n := range names {
		h := hosts[n]
		line := fmt.Sprintf("host %s: %d requests, %d bytes, %d samples, total %d", n, h.requests, h.bytes, h.points, h.total)
		if *comm != "" && h.minute > 0 {
			line += fmt.Sprintf(", %s %.2f%% of the minute", *comm, 100*float64(h.burst)/float64(h.minute))
		}
		fmt.Println(line)
	}
	fmt.Printf("all %d hosts: %d requests, %d bytes, %d samples, total %d, first to last request %v\n",
		len(hosts), all.requests, all.bytes, all.points, all.total, last.Sub(first).Round(time.Millisecond))
}
