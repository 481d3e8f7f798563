package infile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
)

// Stdin is the process's standard input as a run sees it: readable, and stat-able so a
// terminal is never read.
type Stdin interface {
	io.Reader
	Stat() (os.FileInfo, error)
}

// StdinMax bounds what is read from stdin; more is refused rather than silently cut.
const StdinMax = 8 << 20

// StdinKind is what the process's stdin is, which decides whether and how it is read.
type StdinKind int

const (
	StdinNone StdinKind = iota // a socket, a closed descriptor
	StdinTerminal
	StdinPipe
	StdinFile
	StdinDevice // a character device that is not a terminal: /dev/null
)

// KindOf says what stdin is; nil is StdinNone.
func KindOf(stdin Stdin) StdinKind {
	if stdin == nil {
		return StdinNone
	}
	fi, err := stdin.Stat()
	if err != nil {
		return StdinNone
	}
	m := fi.Mode()
	switch {
	case m&os.ModeNamedPipe != 0:
		return StdinPipe
	case m.IsRegular():
		return StdinFile
	case m&os.ModeCharDevice != 0 && m&os.ModeDevice != 0:
		// /dev/null is a character device too. Neither is read implicitly; only `-p -`
		// reads a device, and only one that is not a terminal.
		if f, ok := stdin.(interface{ Fd() uintptr }); ok && !isatty.IsTerminal(f.Fd()) && !isatty.IsCygwinTerminal(f.Fd()) {
			return StdinDevice
		}
		return StdinTerminal
	}
	return StdinNone
}

// ErrStdinSilent is ReadStdin giving up on a stdin whose first byte did not come in time.
var ErrStdinSilent = errors.New("stdin silent")

// ReadStdin reads stdin to EOF, at most StdinMax bytes (more is a *TooLargeError). With grace > 0 it gives up when the
// first byte does not arrive in time. It calls notice (if not nil) once when the first byte
// has not come after noticeAfter. It never outlives ctx.
func ReadStdin(ctx context.Context, r io.Reader, grace, noticeAfter time.Duration, notice func()) (string, error) {
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan struct{})
	done := make(chan chunk, 1)
	go func() {
		var buf []byte
		tmp := make([]byte, 64<<10)
		signalled := false
		for {
			n, err := r.Read(tmp)
			if n > 0 && !signalled {
				close(first)
				signalled = true
			}
			buf = append(buf, tmp[:n]...)
			if len(buf) > StdinMax {
				done <- chunk{err: &TooLargeError{Path: "stdin", Max: StdinMax}}
				return
			}
			if err == io.EOF {
				if !signalled {
					close(first)
				}
				done <- chunk{b: buf}
				return
			}
			if err != nil {
				if !signalled {
					close(first)
				}
				done <- chunk{err: fmt.Errorf("read stdin: %w", err)}
				return
			}
		}
	}()
	var timeout, noticed <-chan time.Time
	if grace > 0 {
		t := time.NewTimer(grace)
		defer t.Stop()
		timeout = t.C
	}
	if notice != nil && noticeAfter > 0 {
		n := time.NewTimer(noticeAfter)
		defer n.Stop()
		noticed = n.C
	}
	for {
		select {
		case c := <-done:
			return string(c.b), c.err
		case <-first:
			first, timeout, noticed = nil, nil, nil
		case <-noticed:
			notice()
			noticed = nil
		case <-timeout:
			return "", ErrStdinSilent
		case <-ctx.Done():
			return "", context.Cause(ctx)
		}
	}
}
