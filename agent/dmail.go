package agent

import (
	"errors"
	"fmt"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/session"
)

// dmail is a message the agent sends back to an earlier checkpoint of its own conversation.
type dmail struct {
	message    string
	checkpoint int
}

// ErrDMailPending means a D-Mail was already sent in this step.
var ErrDMailPending = errors.New("a D-Mail is already on its way; only one can be sent per step")

// SendDMail queues a D-Mail; it is delivered after the current step. It implements
// tools.DMailer.
func (a *Agent) SendDMail(message string, checkpoint int) error {
	a.dmailMu.Lock()
	defer a.dmailMu.Unlock()
	if a.dmail != nil {
		return ErrDMailPending
	}
	if checkpoint < 0 || checkpoint >= len(a.checkpoints) {
		return &session.UnknownCheckpointError{ID: checkpoint, Taken: len(a.checkpoints)}
	}
	a.dmail = &dmail{message: message, checkpoint: checkpoint}
	return nil
}

func (a *Agent) takeDMail() *dmail {
	a.dmailMu.Lock()
	defer a.dmailMu.Unlock()
	d := a.dmail
	a.dmail = nil
	return d
}

// deliver rewinds the conversation to the D-Mail's checkpoint and hands the message to the
// model as a note from its future self. Files on disk stay as they are.
func (a *Agent) deliver(d *dmail) error {
	if err := a.revert(d.checkpoint); err != nil {
		return fmt.Errorf("deliver D-Mail: %w", err)
	}
	a.checkpoint()
	a.appendMsg(model.Message{Role: model.RoleUser, Content: fmt.Sprintf(
		"<system>A D-Mail arrived from your future self. It rewound this conversation to checkpoint %d; whatever you did after it is gone from your memory, but any change you made to files is still on disk. Use what it says and do not mention it to the user. The message:\n\n%s</system>",
		d.checkpoint, d.message)})
	return nil
}
