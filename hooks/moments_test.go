package hooks

import (
	"context"
	"errors"
	"testing"
)

// A UserPromptSubmit hook that blocks without a word still says the prompt was blocked;
// one that allows hands its output on as context.
func TestPromptSubmitted(t *testing.T) {
	ctx := context.Background()
	e, _ := engine(t, Hook{Event: UserPromptSubmit, Matcher: "^refuse", Command: "exit 2"},
		Hook{Event: UserPromptSubmit, Matcher: "^hello", Command: "echo 'be brief'"})
	var blocked *BlockedError
	if _, err := e.PromptSubmitted(ctx, "refuse this"); !errors.As(err, &blocked) || blocked.Error() != "a UserPromptSubmit hook blocked the prompt: no reason given" {
		t.Errorf("blocked without a reason: err = %v", err)
	}
	if note, err := e.PromptSubmitted(ctx, "hello"); err != nil || note != "be brief" {
		t.Errorf("allowed: note %q, err %v", note, err)
	}
}
