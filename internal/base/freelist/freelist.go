// Package freelist keeps objects for reuse within one run of a parallel
// driver. Unlike a sync.Pool it survives garbage collections, which
// otherwise make every chunk allocate (and clear) megabytes afresh.
package freelist

// List holds up to its capacity of spare objects.
type List[T any] struct {
	c    chan T
	make func() T
}

// New returns a List keeping at most n spare objects, making new ones
// with newT when it has none.
func New[T any](n int, newT func() T) *List[T] {
	return &List[T]{c: make(chan T, n), make: newT}
}

// Get returns a spare object, or a new one.
func (f *List[T]) Get() T {
	select {
	case x := <-f.c:
		return x
	default:
		return f.make()
	}
}

// Put keeps x for reuse, or drops it when the list is full.
func (f *List[T]) Put(x T) {
	select {
	case f.c <- x:
	default:
	}
}
