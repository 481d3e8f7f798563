package background

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
)

// notice is what the model is told of a task's end: the message it reads, and the
// notification it is made from (for the Notification hooks).
type notice struct {
	message      string
	notification event.Notification
}

// Notice is a task's end as the root agent receives it: Message is for the model;
// Notification is Kimi CLI's object, for the hooks of its Notification event.
type Notice struct {
	Message      string
	Notification event.Notification
}

// newNotificationID is n and eight hexadecimal digits, as Kimi CLI names notifications.
func newNotificationID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "n" + hex.EncodeToString(b)
}

// severities and titles follow a task's terminal reason, as Kimi CLI grades them.
var (
	severities = map[string]string{"completed": "success", "timed_out": "error", "failed": "error", "killed": "warning", "lost": "warning"}
	titles     = map[string]string{"completed": "completed", "timed_out": "timed out", "failed": "failed", "killed": "stopped", "lost": "lost"}
)

// notification is Kimi CLI's Notification object for v's end, scrubbed.
func (m *Manager) notification(v Task) event.Notification {
	reason := v.TerminalReason()
	desc := m.scrub(v.Description)
	body := []string{"Task ID: " + v.ID, "Status: " + string(v.Status)}
	if d := duration(v); d > 0 {
		body[1] += fmt.Sprintf(" (ran %s)", d.Round(time.Millisecond))
	}
	body = append(body, "Description: "+desc)
	if reason != string(v.Status) {
		body = append(body, "Terminal reason: "+reason)
	}
	if v.HasExit {
		body = append(body, fmt.Sprintf("Exit code: %d", v.ExitCode))
	}
	if v.Reason != "" {
		body = append(body, "Reason: "+m.scrub(v.Reason))
	}
	// Kimi CLI writes the object without its null values (exclude_none), the payload's too.
	payload := map[string]any{
		"task_id": v.ID, "task_kind": Kind, "status": string(v.Status), "description": desc,
		"interrupted": v.Interrupted(),
		"timed_out":   v.TimedOut, "terminal_reason": reason, "duration_s": duration(v).Seconds(),
	}
	if v.HasExit {
		payload["exit_code"] = v.ExitCode
	}
	if v.Reason != "" {
		payload["failure_reason"] = m.scrub(v.Reason)
	}
	if !v.Ended.IsZero() {
		payload["finished_at"] = unixSeconds(v.Ended)
	}
	return event.Notification{ID: newNotificationID(), Category: "task", Type: "task." + reason,
		SourceKind: "background_task", SourceID: v.ID, Title: "Background task " + titles[reason] + ": " + desc,
		Body: strings.Join(body, "\n"), Severity: severities[reason], CreatedAt: unixSeconds(m.now()), Payload: payload}
}

// unixSeconds is t in fractional seconds since 1970, as Kimi CLI stamps notifications.
func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixMicro()) / 1e6
}

// noticeText is what the model reads of a task's end: a <notification> block (Kimi CLI's
// protocol, so a model that knows Kimi's notifications knows these) with the notification's
// lines, the command, and the last lines of the output.
func (m *Manager) noticeText(v Task, n event.Notification) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<notification id=%q category=%q type=%q source_kind=%q source_id=%q>\n",
		n.ID, n.Category, n.Type, n.SourceKind, n.SourceID)
	b.WriteString(n.Title + "\n")
	b.WriteString("Severity: " + n.Severity + "\n")
	b.WriteString(n.Body + "\n")
	if v.Command != "" {
		b.WriteString("Command: " + v.Command + "\n")
	}
	tail := m.scrub(readTail(v.OutputPath, m.tailLines(), m.tailChars()))
	switch {
	case tail == "":
		b.WriteString("It printed nothing.\n")
	default:
		fmt.Fprintf(&b, "The end of its output (all of it: TaskOutput, or ReadFile on %s):\n%s\n", v.OutputPath, strings.TrimRight(tail, "\n"))
	}
	b.WriteString("</notification>")
	return b.String()
}

func (m *Manager) tailLines() int {
	if m.Config.TailLines > 0 {
		return m.Config.TailLines
	}
	return DefaultTailLines
}

func (m *Manager) tailChars() int {
	if m.Config.TailChars > 0 {
		return m.Config.TailChars
	}
	return DefaultTailChars
}

// Wake returns a channel that receives a value after a task ends (at most one waits): the
// print-mode wait sleeps on it.
func (m *Manager) Wake() <-chan struct{} {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.wakeLocked()
}

func (m *Manager) wakeLocked() chan struct{} {
	if m.wake == nil {
		m.wake = make(chan struct{}, 1)
	}
	return m.wake
}

// TakeNotices returns what the model has not been told yet of the tasks that ended, a few
// at a time (each Notice's Message a <notification> block for it), and forgets them: the
// root agent calls it before each step.
func (m *Manager) TakeNotices() []Notice {
	if m == nil {
		return nil
	}
	// An end being saved is published first (see ending).
	m.ending.Lock()
	defer m.ending.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	n := min(len(m.notices), noticesPerStep)
	if n == 0 {
		return nil
	}
	out := make([]Notice, n)
	for i, nt := range m.notices[:n] {
		out[i] = Notice{Message: nt.message, Notification: nt.notification}
	}
	m.notices = append(m.notices[:0:0], m.notices[n:]...)
	return out
}

// DropNotices forgets the notices the model has not read: after a turn that was to read
// them failed, so that the wait does not ask again and again.
func (m *Manager) DropNotices() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.notices = nil
	m.mu.Unlock()
}

// publish records t's end as one change (apply sets its fields), with the notice for the
// model, then wakes the wait: whoever sees no running task also sees every notice.
func (m *Manager) publish(apply func(), nt notice) {
	m.mu.Lock()
	apply()
	m.notices = append(m.notices, nt)
	w := m.wakeLocked()
	m.mu.Unlock()
	select {
	case w <- struct{}{}:
	default:
	}
}
