package run

import (
	"context"

	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// prebuild builds what every run needs whatever its flags and input: the built-in tools'
// table (issue 31). Main starts it on the other core
// while kong builds the command-line model, which nothing can overlap; what is not ready
// when the run reaches it is waited for, never built twice.
func prebuild() {
	tools.Warm()
}

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
