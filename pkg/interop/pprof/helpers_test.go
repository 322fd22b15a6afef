package pprof

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"flamekit/internal/testkit/testcapture"
	decoded "flamekit/pkg/interop/pprof/profile"
)

// collapse runs stackcollapse's library on a real capture and returns the
// timed folded text.
func collapse(t testing.TB, name string) []byte { return testcapture.Fold(t, name) }

// build makes a profile of a folded stream.
func build(t testing.TB, s testcapture.Stream, opts Options) (*profile.Profile, Stats) {
	t.Helper()
	if opts.Location == nil {
		opts.Location = time.UTC
	}
	b := NewBuilder(opts)
	for _, m := range s.Metas {
		b.AddMeta(m)
	}
	for i := range s.Recs {
		if err := b.Add(&s.Recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	return googleOf(t, b), b.Stats()
}

// googleOf writes what b built and parses it with google/pprof's
// profile package, the oracle, which must find it valid.
func googleOf(t testing.TB, b *Builder) *profile.Profile {
	t.Helper()
	var buf bytes.Buffer
	if err := b.Write(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

// encode writes p gzipped with google/pprof and parses it back with Read.
func encode(t testing.TB, p *profile.Profile) ([]byte, *decoded.Profile) {
	t.Helper()
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	q, err := Read(bytes.NewReader(buf.Bytes()), "profile")
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), q
}

// valueSum sums sample type i over p's samples.
func valueSum(p *profile.Profile, i int) int64 {
	var n int64
	for _, s := range p.Sample {
		n += s.Value[i]
	}
	return n
}

func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
