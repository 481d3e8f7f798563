package run_test

import (
	"bytes"
	"io"
	"os"
	"sync"
	"testing"

	"github.com/kimi-run/kimi-run/run"
)

// inProcessVersion is what run.Main is told it is in process; the built binary says
// "dev" too, with the VCS revision when it has one.
const inProcessVersion = "dev"

// mainInProcess runs run.Main in the test process with what the binary would get: args,
// exactly the environment env (through IO.Getenv and IO.Environ, never the test
// process's), stdin as a real pipe holding *stdin or /dev/null when stdin is nil, and no
// signals. What it cannot give a run is a process of its own: the working directory, the
// process-wide PATH that exec uses to find a program, ~ in tool paths (os.UserHomeDir),
// and whatever a run leaves behind when it is gone; tests of those set invocation.proc.
func mainInProcess(t *testing.T, args []string, env map[string]string, stdin *string) result {
	t.Helper()
	var in *os.File
	if stdin == nil {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		in = f
	} else {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		// The writer ends when everything is written, or when the read end is closed
		// after the run (a run that leaves stdin unread), as a child's stdin copy does.
		go func() {
			io.WriteString(w, *stdin)
			w.Close()
		}()
		defer r.Close()
		in = r
	}
	environ := make([]string, 0, len(env))
	for k, v := range env {
		environ = append(environ, k+"="+v)
	}
	stdout := &eventWatcher{}
	var stderr lockedBuffer
	code := run.Main(args, run.IO{
		Stdin:   in,
		Stdout:  stdout,
		Stderr:  &stderr,
		Getenv:  func(k string) string { return env[k] },
		Environ: func() []string { return environ },
	}, inProcessVersion)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: int(code)}
}

// lockedBuffer is a bytes.Buffer safe for the writes of several goroutines, as stderr is
// written by the run and by the commands it streams from.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
