package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/session"
)

// persist writes to the session, if any. A failing session (a full disk) must not end a run
// that is otherwise doing its job: the first failure is reported as a warning and the
// session is dropped.
func (a *Agent) persist(write func(*session.File) error) {
	a.sessionMu.Lock()
	s := a.Session
	a.sessionMu.Unlock()
	if s == nil {
		return
	}
	if err := write(s); err != nil {
		a.sessionMu.Lock()
		a.Session = nil
		if a.sessionErr == nil {
			a.sessionErr = fmt.Errorf("session %s: %w", s.Path(), err)
		}
		a.sessionMu.Unlock()
		a.emit(event.Warning{Message: fmt.Sprintf("session %s: %v; the rest of this run is not saved", s.Path(), err)})
	}
}

// session is the session the run still writes, or nil.
func (a *Agent) session() *session.File {
	a.sessionMu.Lock()
	defer a.sessionMu.Unlock()
	return a.Session
}

// SessionError returns the failure that stopped the session from recording this run (a full
// disk), or nil while every record was written.
func (a *Agent) SessionError() error {
	a.sessionMu.Lock()
	defer a.sessionMu.Unlock()
	return a.sessionErr
}

// appendMsg adds a message to the conversation and the session.
func (a *Agent) appendMsg(m model.Message) {
	a.history = append(a.history, m)
	a.persist(func(s *session.File) error { return s.Append(m) })
}

// checkpoint marks the current end of the conversation and returns its id.
func (a *Agent) checkpoint() int {
	a.init()
	id := len(a.checkpoints)
	a.checkpoints = append(a.checkpoints, len(a.history))
	a.persist(func(s *session.File) error {
		got, err := s.Checkpoint()
		if err == nil && got != id {
			err = fmt.Errorf("checkpoint ids out of step: session %d, agent %d", got, id)
		}
		return err
	})
	if a.CheckpointMarkers {
		a.appendMsg(model.Message{Role: model.RoleUser, Content: fmt.Sprintf("<system>CHECKPOINT %d</system>", id)})
	}
	return id
}

// revert drops everything after checkpoint id was taken, in memory and in the session (whose
// file is rotated aside, not deleted).
func (a *Agent) revert(id int) error {
	if id < 0 || id >= len(a.checkpoints) {
		return &session.UnknownCheckpointError{ID: id, Taken: len(a.checkpoints)}
	}
	a.history = a.history[:a.checkpoints[id]]
	a.checkpoints = a.checkpoints[:id]
	if a.usageAt > len(a.history) {
		a.usageAt = 0 // the last usage counted messages that are gone; estimate afresh
		a.stats.ContextTokens = 0
	}
	a.persist(func(s *session.File) error {
		_, err := s.Revert(id)
		return err
	})
	return nil
}

// Mark remembers the conversation as it is now; Rewind can return to it any number of
// times. A mark is a copy, not a checkpoint id, so it survives compaction (which replaces
// the checkpoints).
func (a *Agent) Mark(_ context.Context) (int, error) {
	a.init()
	a.marks = append(a.marks, append([]model.Message(nil), a.history...))
	return len(a.marks) - 1, nil
}

// Rewind returns the conversation to a mark. The session file is rotated aside and rewritten
// with the marked conversation.
func (a *Agent) Rewind(_ context.Context, mark int) error {
	if mark < 0 || mark >= len(a.marks) {
		return fmt.Errorf("rewind: no mark %d", mark)
	}
	a.history = append([]model.Message(nil), a.marks[mark]...)
	a.usageAt, a.stats.ContextTokens = 0, 0 // estimate afresh
	return a.persistReset()
}

// Restore continues a conversation read back from a session file. Call it before the first
// turn; the system prompt of the file wins over SystemPrompt, as the conversation was built
// on it.
func (a *Agent) Restore(r *session.Restored) {
	prompt := r.SystemPrompt
	if prompt == "" {
		prompt = a.SystemPrompt
	}
	a.history = append([]model.Message{{Role: model.RoleSystem, Content: prompt}}, r.Messages...)
	a.checkpoints = append([]int(nil), r.Checkpoints...)
	for i := range a.checkpoints {
		a.checkpoints[i]++ // the file's counts leave out the system prompt
	}
	a.stats.ContextTokens = r.TokenCount
	if r.TokenCount > 0 {
		a.usageAt = len(a.history)
	}
}

// persistReset rewrites the session after compaction: the old file is rotated aside and the
// new one holds the compacted conversation.
func (a *Agent) persistReset() error {
	a.checkpoints = nil
	a.persist(func(s *session.File) error {
		if _, err := s.Revert(0); err != nil {
			return err
		}
		if _, err := s.Checkpoint(); err != nil {
			return err
		}
		for _, m := range a.history[1:] {
			if err := s.Append(m); err != nil {
				return err
			}
		}
		return s.Usage(a.stats.ContextTokens)
	})
	a.checkpoints = []int{1}
	return nil
}

// unfinishedTurn reports whether turn may continue the restored conversation's last turn
// (see ResumeTurn): it is the first turn, the conversation's last prompt is prompt, and no
// final answer came after it. steps counts the assistant replies saved since that prompt.
func (a *Agent) unfinishedTurn(turn int, prompt string) (steps int, ok bool) {
	if !a.ResumeTurn || turn != 1 || len(a.history) < 2 {
		return 0, false
	}
	last := a.history[len(a.history)-1]
	if last.Role == model.RoleAssistant && len(last.ToolCalls) == 0 {
		return 0, false // answered: a new turn asks again
	}
	for i := len(a.history) - 1; i > 0; i-- {
		m := a.history[i]
		switch {
		case m.Role == model.RoleAssistant:
			steps++
		case m.Role == model.RoleUser && strings.HasPrefix(m.Content, "<system>"):
			// A checkpoint marker or a note of the agent's own, not a prompt.
		case m.Role == model.RoleUser:
			return steps, m.Content == prompt
		}
	}
	return 0, false
}
