package background

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/atomicfile"
	"github.com/kimi-run/kimi-run/internal/infile"
)

// recordName is the file in a task's folder that says what the task is and how it ended,
// rewritten whole when it starts and when it ends: what a later run of the session knows
// of it.
const recordName = "task.json"

// record is a task's record, in Kimi CLI's words where it has them.
type record struct {
	Version      int       `json:"version"`
	ID           string    `json:"id"`
	Kind         string    `json:"kind"`
	Description  string    `json:"description"`
	Command      string    `json:"command"`
	ToolCallID   string    `json:"tool_call_id"`
	TimeoutS     int       `json:"timeout_s"`
	KeepAlive    bool      `json:"keep_alive,omitempty"`
	PID          int       `json:"pid,omitempty"`
	Status       Status    `json:"status"`
	ExitCode     *int      `json:"exit_code,omitempty"`
	TimedOut     bool      `json:"timed_out,omitempty"`
	StoppedBy    StoppedBy `json:"stopped_by,omitempty"`
	Reason       string    `json:"failure_reason,omitempty"`
	StartedAt    time.Time `json:"started_at"`
	FinishedAt   time.Time `json:"finished_at,omitzero"`
	OutputBytes  int64     `json:"output_bytes,omitempty"`
	DroppedBytes int64     `json:"dropped_bytes,omitempty"`
}

// save writes v's record into its folder. A record that cannot be written only costs a
// later run of the session what it would know of the task: a warning says so.
func (m *Manager) save(v Task) {
	r := record{Version: 1, ID: v.ID, Kind: Kind, Description: m.scrub(v.Description), Command: m.scrub(v.Command),
		ToolCallID: v.ToolCallID, TimeoutS: int(v.Timeout / time.Second), KeepAlive: v.KeepAlive, PID: v.PID,
		Status: v.Status, ExitCode: exitCode(v), TimedOut: v.TimedOut, StoppedBy: v.StoppedBy, Reason: m.scrub(v.Reason),
		StartedAt: v.Started, FinishedAt: v.Ended, OutputBytes: v.OutputBytes, DroppedBytes: v.DroppedBytes}
	data, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		err = atomicfile.Write(filepath.Join(filepath.Dir(v.OutputPath), recordName), append(data, '\n'), 0o600)
	}
	if err != nil {
		m.emit(event.Warning{Message: fmt.Sprintf("background task %s: its record is not saved (a resumed run will not know it): %v", v.ID, err)})
	}
}

// Restore reads the tasks an earlier run of the session left in m.Dir. Those that ended are
// listed as they ended (TaskList, TaskOutput); those the records still call running did not
// outlive that run, or were kept alive without this run being able to follow them: they
// are lost, which a task_ended event and a notice for the model say. Call it before the
// run starts any task.
func (m *Manager) Restore() {
	if m == nil || m.Dir == "" {
		return
	}
	names, _ := filepath.Glob(filepath.Join(m.Dir, "*", recordName))
	var recs []record
	for _, name := range names {
		data, err := infile.Read(context.Background(), name, infile.SessionMeta)
		if err != nil {
			continue
		}
		var r record
		if json.Unmarshal(data, &r) != nil || r.ID == "" || filepath.Base(filepath.Dir(name)) != r.ID {
			continue
		}
		recs = append(recs, r)
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].StartedAt.Before(recs[j].StartedAt) })
	for _, r := range recs {
		t := &task{m: m, id: r.ID, description: r.Description, command: r.Command, toolCallID: r.ToolCallID,
			timeout: time.Duration(r.TimeoutS) * time.Second, keepAlive: r.KeepAlive, earlier: true,
			outPath: filepath.Join(m.Dir, r.ID, "output.log"), status: r.Status, timedOut: r.TimedOut,
			stoppedBy: r.StoppedBy, reason: r.Reason, started: r.StartedAt, ended: r.FinishedAt,
			outputBytes: r.OutputBytes, dropped: r.DroppedBytes, pid: r.PID, done: make(chan struct{}), stop: make(chan stopRequest, 1)}
		if r.ExitCode != nil {
			t.exitCode, t.hasExit = *r.ExitCode, true
		}
		m.mu.Lock()
		m.tasks = append(m.tasks, t)
		m.mu.Unlock()
		if r.Status != StatusRunning {
			close(t.done)
			continue
		}
		v := t.view()
		v.Status, v.Ended, v.Earlier = StatusLost, m.now(), true
		v.Reason = "the run that started it ended first, and it was ended with that run"
		if r.KeepAlive {
			v.Reason = fmt.Sprintf("an earlier run started it and kept it alive (process group %d); this run neither follows nor stops it, and its output file may still grow", r.PID)
		}
		if fi, err := os.Lstat(v.OutputPath); err == nil {
			v.OutputBytes = fi.Size()
		}
		m.conclude(t, v)
	}
}
