// Package otlprecv is the one stand-in OTLP/HTTP profiles receiver of the
// tests and of otlpsink: an http.Handler that decodes each request with
// the official proto package and keeps it, after failing on purpose as a
// script says (a server restarting, throttling, refusing, dropping the
// connection). It is not Pyroscope.
package otlprecv

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"sync"

	"google.golang.org/protobuf/proto"

	collectorpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
)

// Receiver receives ExportProfilesServiceRequests posted to Path. Each
// request takes the next of Faults, if any:
//
//   - "503": answered 503 (a server restarting);
//   - "429": answered 429 with Retry-After: 1 (throttling);
//   - "400": answered 400 (the profile refused);
//   - "drop": the connection closed unanswered (a network that drops it,
//     a server killed mid-request);
//   - "partial": accepted, answered with a partial success rejecting two
//     profiles;
//
// and is accepted once the script is done: answered 200, given to
// OnAccept. Requests elsewhere than Path are answered 404; a request
// that is not gzipped (Gzip) or has another Content-Type than
// ContentType (when set), 415; one that does not decode, 400.
type Receiver struct {
	Path        string
	ContentType string
	Gzip        bool
	Faults      []string
	// OnAccept, when not nil, is given each request accepted, and wire
	// the size of its body as sent, one at a time. When nil, the
	// requests accepted are kept (Accepted).
	OnAccept func(req *collectorpb.ExportProfilesServiceRequest, wire int)

	mu       sync.Mutex
	requests int
	accepted [][]byte
}

// ServeHTTP receives one request.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	wire, err := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	switch {
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	case req.URL.Path != r.Path:
		http.NotFound(w, req)
		return
	case r.ContentType != "" && req.Header.Get("Content-Type") != r.ContentType:
		http.Error(w, "want Content-Type "+r.ContentType, http.StatusUnsupportedMediaType)
		return
	}
	body := wire
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(wire))
		if err == nil {
			body, err = io.ReadAll(zr)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	} else if r.Gzip {
		http.Error(w, "want a gzipped body", http.StatusUnsupportedMediaType)
		return
	}
	fault := ""
	if len(r.Faults) > 0 {
		fault, r.Faults = r.Faults[0], r.Faults[1:]
	}
	switch fault {
	case "drop":
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return
	case "503":
		http.Error(w, "starting up", http.StatusServiceUnavailable)
		return
	case "429":
		w.Header().Set("Retry-After", "1")
		http.Error(w, "slow down", http.StatusTooManyRequests)
		return
	case "400":
		http.Error(w, "bad profile", http.StatusBadRequest)
		return
	}
	var m collectorpb.ExportProfilesServiceRequest
	if err := proto.Unmarshal(body, &m); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.OnAccept != nil {
		r.OnAccept(&m, len(wire))
	} else {
		r.accepted = append(r.accepted, body)
	}
	resp := &collectorpb.ExportProfilesServiceResponse{}
	if fault == "partial" {
		resp.PartialSuccess = &collectorpb.ExportProfilesPartialSuccess{RejectedProfiles: 2, ErrorMessage: "too old"}
	}
	b, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

// Requests returns how many requests came, whatever their answer.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Accepted returns the bodies (decompressed) of the requests accepted, in
// the order they came (none when OnAccept is set).
func (r *Receiver) Accepted() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.accepted...)
}
