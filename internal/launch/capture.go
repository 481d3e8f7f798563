package launch

import (
	"io"
	"os"
	"sync"
	"time"
)

// Capture copies a child's stdout and stderr into writers through pipes of kimi-run's own,
// so that the wait for a child ends when it exits, not when the last process holding its
// output lets go. Pass Stdout and Stderr in the Spec, call Started once Start has returned
// (whether or not it failed), and Wait once the child has exited; Abandon when it never
// started.
type Capture struct {
	read, write []*os.File
	done        sync.WaitGroup
}

// NewCapture makes a pipe for stdout and one for stderr, read into out and errOut.
func NewCapture(out, errOut io.Writer) (*Capture, error) {
	c := &Capture{}
	for _, w := range []io.Writer{out, errOut} {
		pr, pw, err := os.Pipe()
		if err != nil {
			c.Abandon()
			return nil, err
		}
		c.read, c.write = append(c.read, pr), append(c.write, pw)
		c.done.Go(func() { _, _ = io.Copy(w, pr) })
	}
	return c, nil
}

// Stdout is the write end to give the child as its stdout.
func (c *Capture) Stdout() *os.File { return c.write[0] }

// Stderr is the write end to give the child as its stderr.
func (c *Capture) Stderr() *os.File { return c.write[1] }

// Started closes this process's copies of the write ends, once the child has its own.
func (c *Capture) Started() {
	for _, w := range c.write {
		w.Close()
	}
}

// Wait waits up to d for the output to end (what the child left behind holding the pipes
// gets that long), then stops reading.
func (c *Capture) Wait(d time.Duration) {
	done := make(chan struct{})
	go func() { c.done.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
	}
	c.Abandon()
	<-done
}

// Abandon closes every pipe end, which ends the copying.
func (c *Capture) Abandon() {
	for _, f := range append(c.read, c.write...) {
		f.Close()
	}
}

// Feed returns the read end of a pipe that delivers b and then EOF, to give a child as its
// stdin; the writing is done in the background, and ends when the reader goes (a child
// that never reads its stdin).
func Feed(b []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	go func() {
		_, _ = w.Write(b)
		w.Close()
	}()
	return r, nil
}
