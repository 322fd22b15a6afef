package collapse

import (
	"errors"
	"io"
	"runtime"
	"sync"

	"flamekit/internal/base/freelist"
	"flamekit/pkg/perf/sample"
)

// Driver folds inputs of any format into folded stacks: the one fold
// driver of flamekit. Each input plugs in its Producer, which cuts it into
// chunks of consecutive samples on one goroutine (the reader); Workers
// goroutines fold the chunks at once, and their results are merged in
// input order, where the stages that need order run (off-CPU intervals,
// waker stacks, hot/cold) and the output is written. The output does not
// depend on the number of workers or on where the inputs were cut: it is
// byte-identical to a run with one worker.
//
// The inputs are read in order, as one stream: classic output sums all of
// them; timed output frames each input with its own metadata lines.
type Driver struct {
	Options
	// Workers is the number of goroutines folding chunks at once; 0
	// means GOMAXPROCS. The reader and the merger run beside them.
	Workers int
	// Warnf prints a message on standard error (may be nil): the events
	// a capture holds, samples left out, off-CPU intervals dropped,
	// frames without symbols.
	Warnf func(format string, args ...any)
	// WhyNoSymbols, when set, says why an object (a file, or a JIT's
	// /tmp/perf-PID.map, as frames name it) has frames without symbols,
	// with the fix (symbols.Resolver.Why): the symbol check then names
	// the cause per object. "" when nothing is known.
	WhyNoSymbols func(dso string) string
	// InlineObject, when set, names the file whose debug information
	// --inline reads for the object frames call dso (a perf.data
	// capture's build-id cache copy), and says with ok false that none
	// may be read (the file there is not the one recorded): its frames
	// are then not expanded. Unset, or "" with ok, reads dso itself.
	InlineObject func(dso string) (file string, ok bool)
}

// Input is one input of a Driver run.
type Input struct {
	Name   string // names the input in messages
	Source string // its "source" metadata value ("" for standard input)
	// Open starts reading the input. It is called on the reading
	// goroutine once the inputs before it were read; an error is the
	// input's (the run goes on with the next input).
	Open func() (Producer, error)
}

// Producer cuts one input into chunks, in input order, on the goroutine
// that reads it: the perf script text reader (perfscript.Text) cuts text
// at sample boundaries, the perf.data reader (through pkg/fold/capture)
// hands over runs of samples whose frames it has resolved, and Samples
// serves samples already in memory. A Producer shows the first samples to
// the Prescan before their chunk is folded, and ends a chunk before a
// sample that changes a decision.
type Producer interface {
	// Next returns the input's next chunk, or nil at its end. While
	// pre.Wanted(), it shows pre the head of each sample of the chunk in
	// order (see Prescan.See), and ends the chunk before a sample that
	// pre refuses. An error ends the input, after the chunk returned
	// with it (if any).
	Next(pre *Prescan) (Chunk, error)
	// Capture returns what the input's header says about the capture;
	// it is complete once Next has returned the first chunk.
	Capture() *sample.Capture
	// Close releases the input once its last chunk was returned; its
	// error is the input's.
	Close() error
}

// Chunk is a run of consecutive samples of one input, which a worker
// folds by itself. It must not share memory that its Producer writes
// after returning it.
type Chunk interface {
	// Fold adds the chunk's samples to s, in order, on a worker
	// goroutine.
	Fold(s *Sink)
	// Done is called on the merging goroutine, in input order, once the
	// chunk's samples were merged: it may account for what the chunk
	// skipped and recycle its memory.
	Done()
}

// Sink takes the samples of one chunk, on a worker goroutine.
type Sink struct {
	w *worker
	b *batch
}

// Add folds s. The sample and the slices it holds are not kept.
func (k *Sink) Add(s *sample.Sample) { k.w.foldSample(k.b, s) }

// Worker returns the number of the worker folding the chunk, from 0 to
// the number of workers less one: chunks of the same number are never
// folded at once, so a Chunk may keep state per worker number (caches).
func (k *Sink) Worker() int { return k.w.id }

// SrclineCount returns how many source lines of `perf script -F+srcline`
// follow the frame line fr (see the function SrclineCount), knowing
// whether --inline expands it.
func (k *Sink) SrclineCount(fr *sample.Frame) int { return k.w.srclineCount(fr) }

// Prescan is the driver's view of the run's first samples, which decide
// the event kept (Options.EventFilter resolved to a name of the input, or
// the first event seen, as in stackcollapse-perf.pl) and whether the
// output is timed (it is when the first sample has a time and
// Options.NoTime is false). A Producer shows it the head of each sample,
// in input order, while it is Wanted, before the chunk that holds the
// sample is folded: every chunk is folded under the decisions taken at its
// first sample, so that the output does not depend on where the input was
// cut.
type Prescan struct {
	st   *stage
	seen bool // a sample of the chunk being cut was seen
}

// Wanted reports whether the driver still wants to see samples: until the
// output kind and the event kept are known.
func (p *Prescan) Wanted() bool { return p.st.prescanWanted() }

// See shows the driver the head of the chunk's next sample: its Event,
// Payload and HasTime (nothing else is read). It returns false when the
// sample changes the decisions and is not the chunk's first: the chunk is
// to end before it, and the sample to be shown again as the first of the
// next chunk.
func (p *Prescan) See(s *sample.Sample) bool {
	if p.seen && p.st.decides(s) {
		return false
	}
	p.seen = true
	p.st.prescan(s)
	return true
}

// job is one chunk on its way through a worker to the merger, or the start
// or end of an input.
type job struct {
	chunk   Chunk
	input   int
	memo    *chainMemo // the input's, shared by the workers folding its chunks
	batch   *batch
	begin   bool            // the input's first job: Begin before it
	capture *sample.Capture // with begin
	end     bool            // the input's last job: End after it
	done    chan struct{}   // closed once folded; with end, once the producer is closed
}

// Run reads the inputs in order and writes the folded output to w. Inputs
// that cannot be read are reported in the returned error, after the
// others were folded; a write error stops the run. The error is an
// *OptionsError when the options contradict each other.
func (d *Driver) Run(w io.Writer, inputs []Input) (Summary, error) {
	st, err := newStage(w, d.Options)
	if err != nil {
		return Summary{}, err
	}
	return d.run(st, inputs)
}

// run is Run with the stage st (writing text, or giving records).
func (d *Driver) run(st *stage, inputs []Input) (Summary, error) {
	if st.inl != nil {
		st.inl.object = d.InlineObject
	}
	inputErrs := d.fold(st, inputs)
	sum, err := st.close()
	if err != nil {
		return sum, err
	}
	return sum, errors.Join(inputErrs...)
}

// fold reads the inputs in order into st, and returns the errors of the
// inputs that could not be read; st.close writes what is left.
func (d *Driver) fold(st *stage, inputs []Input) []error {
	st.warnf = d.Warnf
	st.sym.why = d.WhyNoSymbols
	workers := d.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}

	jobs := make(chan *job)
	queue := make(chan *job, 2*workers+2)
	batches := freelist.New(cap(queue)+workers+2, func() *batch { return &batch{} })
	var wg sync.WaitGroup
	for i := range workers {
		wk := st.newWorker()
		wk.id = i
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				wk.startInput(j.input, j.memo)
				j.chunk.Fold(&Sink{w: wk, b: j.batch})
				close(j.done)
			}
			wk.sums.flush(st.sums)
			wk.keyc.flush(st.keys)
		}()
	}

	var (
		mu       sync.Mutex
		mergeErr error
	)
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return mergeErr != nil
	}
	mergeDone := make(chan struct{})
	go func() {
		defer close(mergeDone)
		for j := range queue {
			if j.begin {
				st.begin(j.capture, inputs[j.input].Source)
			}
			var err error
			if j.chunk != nil {
				<-j.done
				err = st.merge(j.batch)
				j.chunk.Done()
				batches.Put(j.batch)
			}
			if j.end {
				// What closing the producer tells (its warnings) comes
				// before what the end of the input does, whichever
				// goroutine is first.
				<-j.done
				if e := st.end(); err == nil {
					err = e
				}
			}
			if err != nil {
				mu.Lock()
				mergeErr = err
				mu.Unlock()
			}
		}
	}()

	var inputErrs []error
	pre := &Prescan{st: st}
	for i, in := range inputs {
		if failed() {
			break
		}
		p, err := in.Open()
		if err != nil {
			inputErrs = append(inputErrs, err)
			continue
		}
		n := 0
		memo := new(chainMemo)
		for !failed() {
			pre.seen = false
			c, err := p.Next(pre)
			if c != nil {
				j := &job{chunk: c, input: i, memo: memo, begin: n == 0, done: make(chan struct{})}
				if j.begin {
					capture := *p.Capture()
					j.capture = &capture
				}
				j.batch = batches.Get()
				j.batch.reset(st.d)
				n++
				queue <- j
				jobs <- j
			}
			if err != nil {
				inputErrs = append(inputErrs, err)
				break
			}
			if c == nil {
				break
			}
		}
		end := &job{input: i, begin: n == 0, end: true, done: make(chan struct{})}
		if end.begin {
			capture := *p.Capture()
			end.capture = &capture
		}
		queue <- end
		if err := p.Close(); err != nil {
			inputErrs = append(inputErrs, err)
		}
		close(end.done)
	}
	close(queue)
	close(jobs)
	wg.Wait()
	<-mergeDone
	return inputErrs
}

// Samples returns a Producer of samples held in memory (a reader that
// builds them itself, tests), cut into chunks of at most size samples (0:
// 1024), with the capture's facts c (may be nil). The samples must not
// change during the run.
func Samples(c *sample.Capture, samples []sample.Sample, size int) Producer {
	if c == nil {
		c = &sample.Capture{}
	}
	if size <= 0 {
		size = 1024
	}
	return &sliceProducer{c: c, rest: samples, size: size}
}

type sliceProducer struct {
	c    *sample.Capture
	rest []sample.Sample
	size int
}

type sliceChunk []sample.Sample

func (c sliceChunk) Fold(s *Sink) {
	for i := range c {
		s.Add(&c[i])
	}
}

func (sliceChunk) Done() {}

func (p *sliceProducer) Next(pre *Prescan) (Chunk, error) {
	if len(p.rest) == 0 {
		return nil, nil
	}
	n := min(p.size, len(p.rest))
	for i := 0; i < n && pre.Wanted(); i++ {
		if !pre.See(&p.rest[i]) {
			n = i
			break
		}
	}
	c := sliceChunk(p.rest[:n:n])
	p.rest = p.rest[n:]
	return c, nil
}

func (p *sliceProducer) Capture() *sample.Capture { return p.c }
func (p *sliceProducer) Close() error             { return nil }
