package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/filechanges"
)

// trackChanges starts tracking what the run changes under its work dirs, for
// result.files_changed. kimi-run's own files there are not the run's work: the sessions,
// the answer file, a cassette, the sandbox's temp dir, and its stdout and stderr when they
// are files. The tracker keeps its state in the session's folder, where a run that
// continues a killed run's turn (resume) takes it up. Under the sandbox it learns which
// paths the confined commands can write: its git takes no orders from there.
func (r *runState) trackChanges(in *inputs, resume bool) *filechanges.Tracker {
	s := r.s
	c := filechanges.Config{
		WorkDir: s.WorkDir, AddDirs: in.ws.addDirs,
		Exclude:  []string{r.session.Root, r.answerFile, s.Flags.Record, r.guard.sandbox.TempDir()},
		Launcher: r.launch, NoGit: s.Flags.FilesChanged == "tools",
		GitSettings: r.guard.sandbox.Active(), Warn: r.warn,
		Secret: func(s string) bool { return r.secrets.String(s) != s },
	}
	if r.guard.sandbox.WriteDirs() != nil { // the files are confined
		c.Writable = func(p string) bool { return r.guard.sandbox.CanWrite(p) == nil }
	}
	if r.sio.Self {
		// The process's own descriptors 1 and 2: a `> events.ndjson` in the checkout.
		c.Own = []*os.File{os.Stdout, os.Stderr}
	}
	if r.session.File != nil {
		c.State = filepath.Join(filepath.Dir(r.session.File.Path()), "changes")
		if resume {
			c.Turn = in.prompt
		}
	}
	return filechanges.New(c)
}

// warnGitSettings says which of git's settings a sandboxed run changed: the CI job's later
// git steps obey them, outside the sandbox. With events on stdout, stderr says it too: a
// person reading the job's log must see it.
func (r *runState) warnGitSettings(paths []string) {
	if len(paths) == 0 {
		return
	}
	msg := fmt.Sprintf("the run changed %s: git obeys them in the job's later steps, outside the sandbox; check them before running git there", strings.Join(paths, ", "))
	r.warn(msg)
	if r.s.Output.NDJSON() {
		fmt.Fprintf(r.sio.Stderr, "kimi-run: warning: %s\n", msg)
	}
}

// collectGrace bounds the comparison of the files at the end of a run that was stopped (a
// signal, --timeout): the run must end promptly, and the list is worth a few seconds.
const collectGrace = 3 * time.Second

// afterRun is the context for the work that finishes a run: the run's own while it lasts
// (--timeout still holds), else a short one of its own.
func afterRun(ctx context.Context) context.Context {
	if ctx.Err() == nil {
		return ctx
	}
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), collectGrace)
	context.AfterFunc(c, cancel)
	return c
}
