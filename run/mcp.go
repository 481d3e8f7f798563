package run

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/mcp"
)

// startMCP starts the configured servers in parallel, confined as the sandbox decides;
// their shutdown is one of the run's releases. In text mode each line a server writes on
// stderr goes to stderr with the server's name, unless quiet; in stream-json mode it is
// dropped, so that only events reach stdout. A server that stops on its own later is a
// warning; one that fails to start stops the run under --mcp-strict.
func (r *runState) startMCP(ctx context.Context) (*mcp.Set, error) {
	s := r.s
	opts := mcp.Options{
		Launcher: r.launch, StartupTimeout: s.MCP.Startup, CallTimeout: s.MCP.Call, Version: r.version, Roots: []string{s.WorkDir},
		Exited: func(server string, err error) {
			r.emit(event.Warning{Message: fmt.Sprintf(
				"MCP server %q stopped: %v; its tools fail for the rest of the run", server, err)})
		},
	}
	if !s.Output.NDJSON() && !s.Output.Quiet {
		opts.Stderr = func(server, line string) {
			fmt.Fprintf(r.sio.Stderr, "[mcp %s] %s\n", output.Neutralize(server), output.Neutralize(line))
		}
	}
	set := mcp.NewSet(opts)
	r.stop.mcpKill.set(set.Kill)
	set.Start(ctx, confineServers(r.guard.sandbox, s.MCP, r.warn).Servers)
	r.res.add(set.Close)
	for _, st := range set.Statuses() {
		if st.Err != nil && s.MCP.Strict {
			return nil, usagef("MCP server %q failed to start: %v (--mcp-strict stops the run)", st.Name, st.Err)
		}
	}
	return set, nil
}

// withMCP gives every subagent kind the MCP tools (the parent's sessions, hooked like the
// parent's): all of them to a kind that may change files (one of its tools writes files:
// Shell, WriteFile, StrReplaceFile), only those that say they change nothing (their
// server's readOnlyHint) to the others (explore, plan).
func withMCP(kinds map[string]agent.SubagentKind, mcpTools []tools.Tool, e *hooks.Engine) map[string]agent.SubagentKind {
	if len(mcpTools) == 0 {
		return kinds
	}
	all := hooks.Wrap(e, mcpTools)
	readOnly := hooks.Wrap(e, slices.DeleteFunc(slices.Clone(mcpTools), func(t tools.Tool) bool { return !t.Facts().ReadOnly }))
	for name, k := range kinds {
		extra := readOnly
		if slices.ContainsFunc(k.Tools, func(t tools.Tool) bool { return t.Facts().WritesFiles }) {
			extra = all
		}
		k.Tools = append(append([]tools.Tool(nil), k.Tools...), extra...)
		kinds[name] = k
	}
	return kinds
}

// exitHook runs a last action before the immediate exit on a second signal, which skips
// deferred cleanup: it kills the MCP servers' process groups so that none outlives the run.
type exitHook struct{ fn atomic.Pointer[func()] }

func (h *exitHook) set(fn func()) { h.fn.Store(&fn) }

// run runs the hook's action, if one is set.
func (h *exitHook) run() {
	if fn := h.fn.Load(); fn != nil {
		(*fn)()
	}
}
