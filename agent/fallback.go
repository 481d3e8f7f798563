package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
)

// Switch is what Agent.Fallback reports of a switch to the next model of the chain.
type Switch struct {
	// From is the model that kept failing; To the fallback now used, as it was named, and
	// Provider its provider type ("" for an endpoint from the environment).
	From, To, Provider string
	// MaxContext is the fallback's context window, and CapCompletion whether requests to
	// it carry a completion cap (see Compaction); MaxContext 0 leaves both as they were.
	MaxContext    int
	CapCompletion bool
}

// callFallingBack makes one model call under the retry policy and, while it fails in the
// way the fallback chain is for, again on the next model of the chain (Agent.Fallback).
// step is the step's number, 0 for a compaction's summary.
func (a *Agent) callFallingBack(ctx context.Context, step int, req model.Request, h model.Handler) (model.Reply, error) {
	reply, err := a.callWithRetry(ctx, step, req, h)
	for err != nil && a.fallBack(ctx, step, err) {
		reply, err = a.callWithRetry(ctx, step, req, h)
	}
	return reply, err
}

// fallBack reports whether a call that failed with err should be made again on the next
// fallback model, and switches to it: the failure is of the kind that outlasted the
// retries (overload, 5xx, network: exit 75), the run was not stopped, and a fallback is
// left. (No tool call of a reply starts before the reply is complete.)
func (a *Agent) fallBack(ctx context.Context, step int, err error) bool {
	var ae *AttemptsError
	if a.Fallback == nil || context.Cause(ctx) != nil || !errors.As(err, &ae) || !model.Retryable(ae.Err) {
		return false
	}
	sw, ok := a.Fallback()
	if !ok {
		return false
	}
	name := sw.To
	msg := fmt.Sprintf("step %d: the model kept failing (%v); trying the step again on the fallback model %s, which the rest of the run uses", step, ae.Err, name)
	if step == 0 {
		msg = fmt.Sprintf("compaction: the model kept failing (%v); asking for the summary again on the fallback model %s, which the rest of the run uses", ae.Err, name)
	}
	a.emit(event.Warning{Message: msg})
	a.emit(event.ModelFallback{Step: step, From: sw.From, To: name, Provider: sw.Provider, Error: ae.Err.Error()})
	if sw.MaxContext > 0 {
		// The next requests are sized, and compaction triggered, for the model that takes them.
		a.Compaction.MaxContext, a.Compaction.CapCompletion = sw.MaxContext, sw.CapCompletion
	}
	return true
}
