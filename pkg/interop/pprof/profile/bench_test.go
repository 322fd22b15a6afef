package profile

import (
	"testing"

	gprofile "github.com/google/pprof/profile"
)

// BenchmarkDecode decodes the test profiles with Decode and, for
// comparison, with google/pprof's ParseUncompressed and CheckValid.
func BenchmarkDecode(b *testing.B) {
	profiles := realProfiles(b)
	var size int64
	for _, data := range profiles {
		size += int64(len(data))
	}
	b.Run("flamekit", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, data := range profiles {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("google", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			for _, data := range profiles {
				p, err := gprofile.ParseUncompressed(data)
				if err != nil {
					b.Fatal(err)
				}
				if err := p.CheckValid(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
