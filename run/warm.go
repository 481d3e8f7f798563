package run

import (
	"context"

	"github.com/kimi-run/kimi-run/model"
)

// predial opens the connection to the model's endpoint while the rest of the set-up
// runs (model.Predial), once the prompt is in hand: a connection opened before a prompt
// that is slow to come (stdin) could be closed by the server as idle. Only the client
// kimi-run builds itself takes it; a recording, a replay or a login's client dials as
// before.
func (r *runState) predial(ctx context.Context) {
	if r.tape.flags.Record != "" || r.tape.replaying() || r.cred.login != nil {
		return
	}
	r.ahead = model.StartPredial(ctx, r.s.Endpoint.BaseURL)
	r.res.add(r.ahead.Close)
}
