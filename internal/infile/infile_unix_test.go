//go:build unix

package infile_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/internal/infile"
)

var errDeadline = errors.New("the test's deadline")

// deadline is a context that ends with errDeadline after d: the run's --timeout, as the
// reader sees it.
func deadline(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeoutCause(context.Background(), d, errDeadline)
	t.Cleanup(cancel)
	return ctx
}

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

func sparse(t *testing.T, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every file that never ends, or never starts, ends within its cap or the context: the
// class of issue 25 #2 (/dev/zero grew a run by 350 MB/s; a FIFO hung it past --timeout).
func TestReadIsBounded(t *testing.T) {
	small := infile.Limit{Max: 1 << 20}
	for _, tt := range []struct {
		name    string
		path    func(t *testing.T) string
		limit   infile.Limit
		tooBig  bool
		stopped bool
		notReg  bool
	}{
		{name: "/dev/zero", path: func(*testing.T) string { return "/dev/zero" }, limit: small, tooBig: true},
		{name: "/dev/urandom", path: func(*testing.T) string { return "/dev/urandom" }, limit: small, tooBig: true},
		{name: "1 GB sparse file", path: func(t *testing.T) string { return sparse(t, 1<<30) }, limit: small, tooBig: true},
		{name: "FIFO without a writer", path: fifo, limit: small, stopped: true},
		{name: "directory", path: func(t *testing.T) string { return t.TempDir() }, limit: small, notReg: true},
		{name: "FIFO where only regular files do", path: fifo, limit: infile.Limit{Max: 1 << 20, RegularOnly: true}, notReg: true},
		{name: "device where only regular files do", path: func(*testing.T) string { return "/dev/zero" }, limit: infile.Limit{Max: 1 << 20, RegularOnly: true}, notReg: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Only a FIFO waits for the deadline; the others must end by themselves, however
			// slow a loaded machine reads /dev/urandom.
			d := time.Minute
			if tt.stopped {
				d = 200 * time.Millisecond
			}
			_, err := infile.Read(deadline(t, d), tt.path(t), tt.limit)
			var tl *infile.TooLargeError
			var nr *infile.NotRegularError
			switch {
			case tt.tooBig && !errors.As(err, &tl):
				t.Fatalf("err %v, want too large", err)
			case tt.stopped && !errors.Is(err, errDeadline):
				t.Fatalf("err %v, want the context's cause", err)
			case tt.notReg && !errors.As(err, &nr):
				t.Fatalf("err %v, want not a regular file", err)
			}
		})
	}
}

// A pipe is a fine input while it has a writer: process substitution (--prompt-file <(...))
// is one; a writer that keeps it open without writing is stopped by the context.
func TestFIFOWithAWriter(t *testing.T) {
	t.Parallel()
	p := fifo(t)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.WriteString("hello")
		w.Close()
	}()
	b, err := infile.Read(deadline(t, time.Minute), p, infile.Limit{Max: 100})
	if err != nil || string(b) != "hello" {
		t.Fatalf("read %q, %v", b, err)
	}

	q := fifo(t)
	held := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(q, os.O_WRONLY, 0)
		if err == nil {
			w.WriteString("partial")
		}
		held <- w
	}()
	_, err = infile.Read(deadline(t, 300*time.Millisecond), q, infile.Limit{Max: 100})
	if !errors.Is(err, errDeadline) {
		t.Fatalf("err %v, want the context's cause", err)
	}
	if w := <-held; w != nil {
		w.Close()
	}
}

func TestRegularFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o600)
	for _, tt := range []struct {
		max    int64
		tooBig bool
	}{{max: 10}, {max: 11}, {max: 9, tooBig: true}} {
		b, err := infile.Read(context.Background(), p, infile.Limit{Max: tt.max})
		var tl *infile.TooLargeError
		if tt.tooBig != errors.As(err, &tl) || (!tt.tooBig && string(b) != "0123456789") {
			t.Errorf("max %d: %q, %v", tt.max, b, err)
		}
	}
	if _, err := infile.Read(context.Background(), filepath.Join(dir, "missing"), infile.Config); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := infile.Read(ctx, p, infile.Config); !errors.Is(err, context.Canceled) {
		t.Errorf("ended context: %v", err)
	}
}

func TestMessages(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&infile.TooLargeError{Path: "/dev/zero", Max: 4 << 20}, "/dev/zero is larger than 4 MiB"},
		{&infile.NotRegularError{Path: "f", Mode: os.ModeNamedPipe}, "f is not a regular file (a FIFO)"},
		{&infile.NotRegularError{Path: "d", Mode: os.ModeDir}, "d is a directory"},
		{&infile.NotRegularError{Path: "/dev/null", Mode: os.ModeDevice | os.ModeCharDevice}, "/dev/null is not a regular file (a character device)"},
	} {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
}

// What a writer left in the FIFO before the read began (it opened, wrote and closed while
// another reader held the pipe; a writer racing kimi-run's open looks the same) is read,
// not lost to a second open that then waits for a writer that never comes.
func TestFIFOWhoseWriterLeftData(t *testing.T) {
	t.Parallel()
	p := fifo(t)
	holder, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	w, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("hello")
	w.Close()
	b, err := infile.Read(deadline(t, 5*time.Second), p, infile.Limit{Max: 100})
	if err != nil || string(b) != "hello" {
		t.Fatalf("read %q, %v", b, err)
	}
}
