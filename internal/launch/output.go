package launch

import (
	"io"
	"os"
	"sync"
)

// Output keeps a child's output in a file of bounded size, as a background task's output
// is kept: pass W as the child's Stdout and Stderr, call Started once Start has returned,
// and read the file while the child runs. Past the limit the output is read and counted,
// not kept, so the child never blocks on a full pipe. A child that must outlive kimi-run
// (Spec.Survive) should write to a file of its own instead: this one is filled by kimi-run.
type Output struct {
	// W is the write end to give the child.
	W *os.File

	r     *os.File
	f     *os.File
	file  io.WriteCloser // to f; Close flushes what it held back, not f
	limit int64
	done  chan struct{}

	tee func(kept []byte)

	mu               sync.Mutex
	written, dropped int64
}

// OutputTee starts keeping up to limit bytes of what is written to W in f, an open file it
// then owns, and hands tee (when not nil) each piece as it is kept in the file (never what
// is dropped past the limit), from the goroutine that copies it: a background task's
// output events. tee must not keep the slice. The file is written through filter when it is not nil (a scrubbing writer that
// holds back an ending until Close); it takes the launcher no imports of its own, so the
// launcher mode stays light (TestLauncherModeSkipsTheRunsInitialisers).
func OutputTee(f *os.File, limit int64, filter func(io.Writer) io.WriteCloser, tee func(kept []byte)) (*Output, error) {
	r, w, err := os.Pipe()
	if err != nil {
		f.Close()
		return nil, err
	}
	var file io.WriteCloser = nopCloser{f}
	if filter != nil {
		file = filter(f)
	}
	o := &Output{W: w, r: r, f: f, file: file, limit: limit, tee: tee, done: make(chan struct{})}
	go o.copy()
	return o, nil
}

func (o *Output) copy() {
	defer close(o.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := o.r.Read(buf)
		if n > 0 {
			o.mu.Lock()
			keep := int64(n)
			if room := o.limit - o.written; keep > room {
				keep = max(room, 0)
			}
			if keep > 0 {
				if _, werr := o.file.Write(buf[:keep]); werr != nil {
					keep = 0 // a full disk: count it as dropped, keep draining
				}
			}
			o.written += keep
			o.dropped += int64(n) - keep
			o.mu.Unlock()
			if keep > 0 && o.tee != nil {
				o.tee(buf[:keep])
			}
		}
		if err != nil {
			return
		}
	}
}

// Started closes kimi-run's copy of W, once the child has its own: the output then ends
// when the child and what it started have closed theirs.
func (o *Output) Started() { o.W.Close() }

// Done is closed once every writer has closed its end (or Close was called).
func (o *Output) Done() <-chan struct{} { return o.done }

// Size is how many bytes were kept in the file and how many were dropped past the limit.
func (o *Output) Size() (written, dropped int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.written, o.dropped
}

// Close stops reading (a process the child left may hold the pipe open for ever) and
// closes the file; what is in it stays.
func (o *Output) Close() error {
	o.W.Close()
	o.r.Close()
	<-o.done
	err := o.file.Close()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	return err
}

var _ io.Closer = (*Output)(nil)

// nopCloser writes to its file and leaves closing it to Output.Close.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
