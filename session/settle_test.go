package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/model"
)

// settleRun opens a new session in a folder of its own, begins a run on it and records
// one answer, as a one-answer run does before Settle.
func settleRun(t *testing.T) *Run {
	t.Helper()
	var warnings []string
	p, err := OpenRun(context.Background(), Want{Dir: t.TempDir(), WorkDir: t.TempDir(), Getenv: func(string) string { return "" },
		Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil || p.File == nil || len(warnings) > 0 {
		t.Fatalf("open: %v, %+v, %q", err, p, warnings)
	}
	t.Cleanup(p.Close)
	if err := p.Begin("hello", t.TempDir(), time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, m := range []model.Message{{Role: model.RoleUser, Content: "hello"}, {Role: model.RoleAssistant, Content: "done"}} {
		if err := p.File.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	return &p
}

// settled checks what Settle left: the meta file records the end with warning, the context
// file holds the answer, and no replacement is left behind in the session's folder or the
// sessions' root.
func settled(t *testing.T, p *Run, code int, warning string) {
	t.Helper()
	dir := filepath.Dir(p.File.Path())
	m, err := ReadMeta(dir)
	if err != nil || m.Ended == nil || m.ExitCode == nil || *m.ExitCode != code || m.SessionWarning != warning || m.Runs != 1 {
		t.Errorf("meta after Settle: %+v, %v; want exit %d, warning %q", m, err, code, warning)
	}
	if r, err := Read(context.Background(), p.File.Path()); err != nil || len(r.Messages) != 2 {
		t.Errorf("context file after Settle: %+v, %v", r, err)
	}
	for _, d := range []string{dir, p.Root} {
		if l, _ := filepath.Glob(filepath.Join(d, ".*.tmp")); len(l) > 0 {
			t.Errorf("left behind: %v", l)
		}
	}
}

// TestSettleRecordsTheEnd checks a run that exits 0: last-session names the session, the
// meta file says how the run ended, with no warning.
func TestSettleRecordsTheEnd(t *testing.T) {
	p := settleRun(t)
	var warned []string
	if w := p.Settle(0, "completed", nil, func(s string) { warned = append(warned, s) }); w != "" || len(warned) > 0 {
		t.Errorf("Settle warned %q, %q", w, warned)
	}
	if b, err := os.ReadFile(filepath.Join(p.Root, lastFile)); err != nil || string(b) != p.ID+"\n" {
		t.Errorf("last-session holds %q, %v; want %s", b, err, p.ID)
	}
	settled(t, p, 0, "")
	// A failed run leaves last-session alone.
	before, _ := os.ReadFile(filepath.Join(p.Root, lastFile))
	q := settleRun(t)
	q.Root = p.Root
	if w := q.Settle(1, "error", nil, func(string) {}); w != "" {
		t.Errorf("a failed run's Settle warned %q", w)
	}
	if b, _ := os.ReadFile(filepath.Join(p.Root, lastFile)); string(b) != string(before) {
		t.Errorf("a failed run changed last-session to %q", b)
	}
	settled(t, q, 1, "")
}

// TestSettleWarningReachesTheMeta checks that a problem found while the end's writes are
// under way (the context file's sync fails, last-session cannot be replaced) is in the
// meta file's session_warning as in the result's, whatever the meta file was first
// written with.
func TestSettleWarningReachesTheMeta(t *testing.T) {
	t.Run("the context file's sync fails", func(t *testing.T) {
		p := settleRun(t)
		p.File.f.Close() // the sync fails; the records are written
		var warned []string
		w := p.Settle(0, "completed", nil, func(s string) { warned = append(warned, s) })
		if !strings.Contains(w, "the session was not saved whole") || len(warned) != 1 {
			t.Errorf("Settle returned %q, warned %q", w, warned)
		}
		settled(t, p, 0, w)
	})
	t.Run("last-session cannot be replaced", func(t *testing.T) {
		p := settleRun(t)
		// A folder with something in it at the name: the rename over it fails, and so does
		// its removal.
		if err := os.MkdirAll(filepath.Join(p.Root, lastFile, "x"), 0o700); err != nil {
			t.Fatal(err)
		}
		var warned []string
		w := p.Settle(0, "completed", nil, func(s string) { warned = append(warned, s) })
		if !strings.Contains(w, "last-session could not be updated") || len(warned) != 1 {
			t.Errorf("Settle returned %q, warned %q", w, warned)
		}
		settled(t, p, 0, w)
	})
	t.Run("the session was not saved whole before", func(t *testing.T) {
		p := settleRun(t)
		w := p.Settle(0, "completed", func() error { return os.ErrPermission }, func(string) {})
		if !strings.Contains(w, "the session was not saved whole") {
			t.Errorf("Settle returned %q", w)
		}
		settled(t, p, 0, w)
	})
}
