package run

import (
	"context"

	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/tools"
)

// prepare is the agent's Prepare (issue 26, "as cheap as the command"): as soon as the
// model's stream names a call that will start a process, the run's launcher process — and
// under the sandbox its confined arm — starts, without waiting, so that its start (a
// start of kimi-run each) overlaps the rest of the stream and the saving of the reply
// rather than delaying the first child. A run whose model calls no such tool never starts
// them. Those that start processes: Shell and the plugins' tools (commands), any tool a
// hook runs around, Grep and Glob when they search with rg, and an MCP tool when the
// changes tracker takes its git snapshot before it (git starts unconfined).
func (r *runState) prepare(eng *hooks.Engine, ripgrep bool) func(tools.Tool) {
	return func(t tools.Tool) {
		f, name := t.Facts(), t.Name()
		switch {
		case f.Where == tools.InCommand, eng.Around(name), ripgrep && (name == "Grep" || name == "Glob"):
			r.launch.Warm(true)
		case f.Where == tools.InServer && r.changes.Git():
			r.launch.Warm(false)
		}
	}
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
