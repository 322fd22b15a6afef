package timeline

import "flamekit/internal/base/hugepage"

// chunks is a growing sequence kept in chunks of a fixed size: it grows
// without copying what it holds (a slice grown by append copies it again
// and again, and leaves the old copies to the collector), and is let go
// chunk by chunk. Chunks after the first, and the slice they are copied
// into, ask for huge pages (package hugepage): filled once, they would
// otherwise cost a page fault per 4 kB.
type chunks[T any] struct {
	c [][]T
	n int
}

const (
	chunkBits = 17 // 4 MB of entries
	chunkLen  = 1 << chunkBits
)

// add appends v and returns its index.
func (c *chunks[T]) add(v T) int {
	k := len(c.c)
	if k == 0 || len(c.c[k-1]) == chunkLen {
		var ch []T // the first grows as small inputs need
		if k > 0 {
			ch = hugepage.Slice[T](chunkLen)
		}
		c.c = append(c.c, ch)
		k++
	}
	c.c[k-1] = append(c.c[k-1], v)
	c.n++
	return c.n - 1
}

// at returns element i.
func (c *chunks[T]) at(i int) *T { return &c.c[i>>chunkBits][i&(chunkLen-1)] }

// appendTo appends the elements to dst, in order, and empties c, letting
// each chunk go once copied.
func (c *chunks[T]) appendTo(dst []T) []T {
	if c.n == 0 {
		return dst
	}
	if cap(dst)-len(dst) < c.n {
		dst = append(hugepage.Slice[T](len(dst)+c.n), dst...)
	}
	for i := range c.c {
		dst = append(dst, c.c[i]...)
		c.c[i] = nil
	}
	*c = chunks[T]{}
	return dst
}

// truncate keeps the first n elements.
func (c *chunks[T]) truncate(n int) {
	if n >= c.n {
		return
	}
	k := n >> chunkBits
	if n&(chunkLen-1) == 0 && k > 0 {
		k-- // n ends chunk k-1, which stays full
	}
	c.c = c.c[:k+1]
	c.c[k] = c.c[k][:n-k<<chunkBits]
	c.n = n
}
