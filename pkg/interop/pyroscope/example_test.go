package pyroscope_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"flamekit/pkg/folded"
	"flamekit/pkg/interop/pyroscope"
)

// Timed samples are pushed in one-second buckets, one pprof profile each.
// (The server here is an httptest stand-in that accepts everything.)
func ExamplePusher() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.URL.Query().Get("name"), r.URL.Query().Get("from"), r.URL.Query().Get("until"))
	}))
	defer srv.Close()

	auth, err := pyroscope.AuthFromEnv(os.Getenv)
	if err != nil {
		panic(err)
	}
	c, err := pyroscope.NewClient(srv.URL, auth, nil)
	if err != nil {
		panic(err)
	}
	name, err := pyroscope.AppName("web", []pyroscope.Label{{Key: "host", Value: "vm01"}})
	if err != nil {
		panic(err)
	}
	// perf time @500 was 2026-11-22T02:00:00Z (perf record -k mono).
	ref := folded.WallRef{Wall: time.Date(2026, 11, 22, 2, 0, 0, 0, time.UTC), Perf: 500e9, Exact: true}
	p := pyroscope.NewPusher(context.Background(), c, name, pyroscope.Fixed(ref), pyroscope.PushOptions{})
	p.AddMeta(folded.Meta{Fields: []folded.Field{{Key: folded.KeyEvent, Value: "cpu-clock"}}})
	text := "main;work 10309278 @500.25\nmain;work 10309278 @500.75\nmain;idle 10309278 @501.5\n"
	rd := folded.NewReader(strings.NewReader(text), "example")
	for rd.Next() {
		if err := p.Add(rd.Record()); err != nil {
			panic(err)
		}
	}
	sum, err := p.Close()
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Buckets, sum.Samples, sum.Total, sum.Weight)
	// Output:
	// web{host=vm01} 1795312800000000000 1795312801000000000
	// web{host=vm01} 1795312801000000000 1795312802000000000
	// 2 3 3.0927834e+07 cpu/nanoseconds
}
