package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
)

// fallBack reports whether a step whose model call failed with err should be tried again
// on the fallback model, and switches to it: the failure is of the kind that outlasted the
// retries (overload, 5xx, network: exit 75), the run was not stopped, and a fallback is
// left. (No tool call of a reply starts before the reply is complete.)
func (a *Agent) fallBack(ctx context.Context, step int, err error) bool {
	var ae *AttemptsError
	if a.Fallback == nil || context.Cause(ctx) != nil || !errors.As(err, &ae) || !model.Retryable(ae.Err) {
		return false
	}
	name, ok := a.Fallback()
	if !ok {
		return false
	}
	a.emit(event.Warning{Message: fmt.Sprintf("step %d: the model kept failing (%v); trying the step again on the fallback model %s, which the rest of the run uses", step, ae.Err, name)})
	return true
}
