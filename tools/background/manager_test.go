//go:build unix

package background

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/testkit"
)

// recorder keeps the events a manager emits.
type recorder struct {
	mu  sync.Mutex
	evs []event.Payload
}

func (r *recorder) emit(p event.Payload) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.evs = append(r.evs, p)
}

func (r *recorder) all() []event.Payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Payload(nil), r.evs...)
}

func newManager(t *testing.T) (*Manager, *recorder) {
	t.Helper()
	rec := &recorder{}
	return &Manager{Dir: t.TempDir(), WorkDir: t.TempDir(), Config: Defaults(), Emit: rec.emit}, rec
}

func shell(command, desc string) Spec {
	return Spec{Path: "/bin/sh", Args: []string{"/bin/sh", "-c", command}, Command: command, Description: desc}
}

// TestNoNoticeIsMissed is Kimi CLI's
// test_race_window_worker_finishes_between_reconcile_and_active_check, as a property of
// State: whenever it shows no task running, every ended task's notice is already there to
// read, so the print-mode wait never ends with a result unread.
func TestNoNoticeIsMissed(t *testing.T) {
	m, _ := newManager(t)
	for i := range 20 {
		if _, err := m.Start(shell("true", "quick")); err != nil {
			t.Fatal(err)
		}
		for {
			running, untold := m.State()
			if running == 0 {
				if untold != 1 {
					t.Fatalf("round %d: no task runs, and %d notices wait, want 1", i, untold)
				}
				break
			}
			<-m.Wake()
		}
		if n := m.TakeNotices(); len(n) != 1 || !strings.Contains(n[0].Message, `type="task.completed"`) {
			t.Fatalf("round %d: notices %v", i, n)
		}
	}
}

// TestTaskOutputEvents: the output goes out in whole lines, a line that does not end in
// pieces of at most 4 KiB, the last piece when the task ends; past EventOutputLimit one
// event says the rest is only in the file, which keeps it all.
func TestTaskOutputEvents(t *testing.T) {
	m, rec := newManager(t)
	// 100 KiB of 1 KiB lines, then a last line without its end.
	cmd := `i=0; while [ $i -lt 100 ]; do printf '%01023d\n' $i; i=$((i+1)); done; printf tail`
	task, err := m.Start(shell(cmd, "chatty"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Wait(t.Context(), task.ID, time.Minute); err != nil {
		t.Fatal(err)
	}
	var sent strings.Builder
	truncated := 0
	for _, p := range rec.all() {
		o, ok := p.(event.TaskOutput)
		if !ok {
			continue
		}
		if o.Truncated {
			truncated++
			continue
		}
		if truncated > 0 {
			t.Error("output after the truncation event")
		}
		if !strings.HasSuffix(o.Text, "\n") {
			t.Errorf("an event cut a line: %q", o.Text[max(0, len(o.Text)-20):])
		}
		sent.WriteString(o.Text)
	}
	if truncated != 1 || sent.Len() > EventOutputLimit || sent.Len() < EventOutputLimit-1024 {
		t.Errorf("%d bytes in events, %d truncation events", sent.Len(), truncated)
	}
	got, _ := m.Get(task.ID)
	if got.OutputBytes != 100*1024+4 || got.Status != StatusCompleted {
		t.Errorf("task = %+v", got)
	}
	b, _ := os.ReadFile(got.OutputPath)
	if !strings.HasSuffix(string(b), "\ntail") || !strings.HasPrefix(sent.String(), string(b[:sent.Len()])) {
		t.Error("the events and the file disagree")
	}
}

// TestLongLineIsSentInPieces: a line with no end goes out in pieces, whole characters.
func TestLongLineIsSentInPieces(t *testing.T) {
	rec := &recorder{}
	m := &Manager{Emit: rec.emit}
	l := newLineEvents(&task{m: m, id: "bash-x"})
	l.write([]byte("early\n"))
	if len(rec.all()) != 0 {
		t.Fatal("output went out before task_started")
	}
	l.begin()
	l.write([]byte(strings.Repeat("é", 3000))) // 6000 bytes, no newline
	l.write([]byte("\nlast"))
	l.flush()
	var texts []string
	for _, p := range rec.all() {
		texts = append(texts, p.(event.TaskOutput).Text)
	}
	if len(texts) != 4 || texts[0] != "early\n" || len(texts[1]) != maxEventChunk || texts[3] != "last" {
		t.Fatalf("pieces %d: %q", len(texts), texts)
	}
	if strings.Join(texts[1:3], "") != strings.Repeat("é", 3000)+"\n" {
		t.Error("a character was cut between pieces")
	}
}

// TestStopAndTimeout: TaskStop ends the group and says who stopped it; a task past its
// timeout fails, timed out; neither leaves a process behind.
func TestStopAndTimeout(t *testing.T) {
	m, _ := newManager(t)
	m.Config.KillGrace = 100 * time.Millisecond
	// The shell starts a child and ignores SIGTERM: the group is still ended.
	stubborn := `trap '' TERM; sleep 600 & echo $! > child; wait`
	a, err := m.Start(shell(stubborn, "stubborn"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Start(Spec{Path: "/bin/sh", Args: []string{"/bin/sh", "-c", "sleep 600"}, Description: "slow", Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	childFile := filepath.Join(m.WorkDir, "child")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(childFile); len(b) > 0 && strings.HasSuffix(string(b), "\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task never started its child")
		}
	}
	stopped, err := m.Stop(a.ID, "enough")
	if err != nil {
		t.Fatal(err)
	}
	if stopped.Status != StatusKilled || stopped.StoppedBy != StoppedByTaskStop || stopped.Reason != "enough" || stopped.HasExit {
		t.Errorf("stopped = %+v", stopped)
	}
	timed, _ := m.Wait(t.Context(), b.ID, time.Minute)
	if timed.Status != StatusFailed || !timed.TimedOut || timed.TerminalReason() != "timed_out" {
		t.Errorf("timed out = %+v", timed)
	}
	child := testkit.ReadPID(t, childFile)
	for _, p := range []int{a.PID, child, b.PID} {
		if !testkit.ProcessGone(p) {
			t.Errorf("process %d still runs", p)
			syscall.Kill(p, syscall.SIGKILL)
		}
	}
	again, _ := m.Stop(a.ID, "again")
	if again.Reason != "enough" {
		t.Errorf("stopping an ended task changed it: %+v", again)
	}
}

// TestRestore: the tasks an earlier run of the session recorded. Those that ended are
// listed as they ended; those it left running are lost, each reported and told.
func TestRestore(t *testing.T) {
	m, rec := newManager(t)
	zero := 0
	for _, r := range []record{
		{Version: 1, ID: "bash-aaaaaaaa", Kind: Kind, Description: "done", Status: StatusCompleted, ExitCode: &zero, StartedAt: time.Unix(100, 0)},
		{Version: 1, ID: "bash-bbbbbbbb", Kind: Kind, Description: "killed with it", Status: StatusRunning, PID: 4242, StartedAt: time.Unix(200, 0)},
		{Version: 1, ID: "bash-cccccccc", Kind: Kind, Description: "kept", Status: StatusRunning, KeepAlive: true, PID: 4343, StartedAt: time.Unix(300, 0)},
	} {
		data, _ := json.Marshal(r)
		os.MkdirAll(filepath.Join(m.Dir, r.ID), 0o700)
		os.WriteFile(filepath.Join(m.Dir, r.ID, recordName), data, 0o600)
	}
	os.WriteFile(filepath.Join(m.Dir, "bash-bbbbbbbb", "output.log"), []byte("last words\n"), 0o600)
	m.Restore()
	list := m.List(false, 0)
	if len(list) != 3 || list[0].ID != "bash-cccccccc" || list[2].Status != StatusCompleted || !list[2].HasExit {
		t.Fatalf("list = %+v", list)
	}
	if list[0].Status != StatusLost || !strings.Contains(list[0].Reason, "kept it alive (process group 4343)") {
		t.Errorf("kept task = %+v", list[0])
	}
	if list[1].Status != StatusLost || list[1].OutputBytes != 11 {
		t.Errorf("task killed with its run = %+v", list[1])
	}
	notices := m.TakeNotices()
	if len(notices) != 2 || !strings.Contains(notices[0].Message, "last words") || notices[1].Notification.Type != "task.lost" {
		t.Errorf("notices = %+v", notices)
	}
	ended := 0
	for _, p := range rec.all() {
		if e, ok := p.(event.TaskEnded); ok && e.Status == "lost" {
			ended++
		}
	}
	if ended != 2 {
		t.Errorf("%d task_ended events, want 2", ended)
	}
	if got := m.Close(); len(got) != 0 {
		t.Errorf("Close reports an earlier run's tasks: %+v", got)
	}
}

// TestNilManager: a run without background tasks refuses them with a word for the model.
func TestNilManager(t *testing.T) {
	var m *Manager
	if _, err := m.Start(shell("true", "x")); !errors.Is(err, ErrNotAvailable) {
		t.Errorf("Start = %v", err)
	}
	if running, untold := m.State(); running != 0 || untold != 0 || m.TakeNotices() != nil || m.Close() != nil {
		t.Error("a nil manager has tasks")
	}
}

func TestReadTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	os.WriteFile(path, []byte("one\ntwo\nthree\nfour\n\n"), 0o600)
	for _, tt := range []struct {
		lines, chars int
		want         string
	}{{2, 100, "three\nfour"}, {10, 7, "ee\nfour"}, {1, 1000, "four"}} {
		if got := readTail(path, tt.lines, tt.chars); got != tt.want {
			t.Errorf("readTail(%d, %d) = %q, want %q", tt.lines, tt.chars, got, tt.want)
		}
	}
}
