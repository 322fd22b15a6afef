// Profiling target for the go capture: methods on pointer receivers
// (main.(*Hasher).Sum, main.(*Pool).run) and goroutines.
// Usage: goprog [seconds]
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"
)

type Hasher struct {
	buf []byte
	out [32]byte
}

func (h *Hasher) Sum(rounds int) [32]byte {
	for i := 0; i < rounds; i++ {
		h.out = sha256.Sum256(h.buf)
		h.buf[0] = h.out[0]
	}
	return h.out
}

type Sorter struct{ data []int }

func (s *Sorter) Shuffle(seed int) {
	for i := range s.data {
		seed = seed*1103515245 + 12345
		s.data[i] = seed & 0xffff
	}
}

func (s *Sorter) Sort() { sort.Ints(s.data) }

type Pool struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	total int
}

func (p *Pool) run(id int, deadline time.Time) {
	defer p.wg.Done()
	h := &Hasher{buf: make([]byte, 4096)}
	s := &Sorter{data: make([]int, 20000)}
	n := 0
	for time.Now().Before(deadline) {
		if id%2 == 0 {
			h.Sum(50)
		} else {
			s.Shuffle(id + n)
			s.Sort()
		}
		n++
	}
	p.mu.Lock()
	p.total += n
	p.mu.Unlock()
}

func main() {
	secs := 2.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = v
		}
	}
	deadline := time.Now().Add(time.Duration(secs * float64(time.Second)))
	p := &Pool{}
	for i := 0; i < 4; i++ {
		p.wg.Add(1)
		go p.run(i, deadline)
	}
	p.wg.Wait()
	fmt.Println(p.total)
}
