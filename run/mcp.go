package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/mcp"
)

// mcpRun is the MCP servers of one run, from start-up to shutdown.
type mcpRun struct {
	plan  config.MCP
	set   *mcp.Set
	tools []*mcp.Tool
	// stopped silences server stderr once shutdown begins.
	stopped atomic.Bool
	// interrupted: a signal or --timeout came during start-up; the result says so, and the
	// servers it cut short are not reported one by one.
	interrupted bool
}

// startMCP starts the planned servers in parallel (none: nothing happens). In text mode
// each line a server writes on stderr goes to stderr with the server's name, unless quiet;
// in stream-json mode it is dropped, so that only events reach stdout and nothing of a
// server ends up in the stream. A server that stops on its own later is a warning.
func startMCP(ctx context.Context, plan config.MCP, r *runState, stderr io.Writer, quiet bool, version, workDir string, kill *exitHook) *mcpRun {
	m := &mcpRun{plan: plan}
	if len(plan.Servers) == 0 {
		return m
	}
	var mu sync.Mutex // one line at a time from several servers
	opts := mcp.Options{
		Launcher:       r.launch,
		StartupTimeout: plan.Startup,
		CallTimeout:    plan.Call,
		Version:        version,
		Roots:          []string{workDir},
		Exited: func(server string, err error) {
			r.emit(event.Warning{Message: fmt.Sprintf(
				"MCP server %q stopped: %v; its tools fail for the rest of the run", server, err)})
		},
	}
	if !r.s.Output.NDJSON() && !quiet {
		opts.Stderr = func(server, line string) {
			if m.stopped.Load() {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(stderr, "[mcp %s] %s\n", output.Neutralize(server), output.Neutralize(line))
		}
	}
	m.set = mcp.NewSet(opts)
	kill.set(m.set.Kill)
	m.set.Start(ctx, plan.Servers)
	m.interrupted = ctx.Err() != nil
	return m
}

// failure is the start-up failures as one usage error for --mcp-strict, or nil.
func (m *mcpRun) failure() error {
	if !m.plan.Strict || m.set == nil {
		return nil
	}
	for _, st := range m.set.Statuses() {
		if st.Err != nil {
			return usagef("MCP server %q failed to start: %v (--mcp-strict stops the run)", st.Name, st.Err)
		}
	}
	return nil
}

// toolset returns the servers' tools, named so that none clashes with the built-ins.
func (m *mcpRun) toolset(builtin []tools.Tool) []tools.Tool {
	if m.set == nil {
		return nil
	}
	m.tools = m.set.Tools(toolNames(builtin))
	out := make([]tools.Tool, len(m.tools))
	for i, t := range m.tools {
		out[i] = t
	}
	return out
}

// initInfo describes the servers and their tools for the init event.
func (m *mcpRun) initInfo() []event.MCPServer {
	if m.set == nil {
		return nil
	}
	var out []event.MCPServer
	for _, st := range m.set.Statuses() {
		s := event.MCPServer{Name: st.Name, Transport: string(st.Transport), Status: "connected", Tools: []string{}}
		if st.Err != nil {
			s.Status, s.Error = "failed", st.Err.Error()
		}
		for _, t := range m.tools {
			if t.Server() == st.Name {
				s.Tools = append(s.Tools, t.Name())
			}
		}
		out = append(out, s)
	}
	return out
}

// warnings are the configuration's warnings and one per server that failed to start.
func (m *mcpRun) warnings() []string {
	out := append([]string(nil), m.plan.Warnings...)
	if m.set == nil || m.interrupted {
		return out
	}
	for _, st := range m.set.Statuses() {
		if st.Err != nil {
			out = append(out, fmt.Sprintf("MCP server %q is not available, the run goes on without its tools: %v", st.Name, st.Err))
		}
		if st.Skipped > 0 {
			out = append(out, fmt.Sprintf("MCP server %q wrote %d line(s) on stdout that are not JSON-RPC, skipped (the first: %q)", st.Name, st.Skipped, st.FirstSkipped))
		}
	}
	return out
}

// close stops every server.
func (m *mcpRun) close() {
	m.stopped.Store(true)
	if m.set != nil {
		m.set.Close()
	}
}

// withMCP gives every subagent kind the MCP tools (the parent's sessions, hooked like the
// parent's): all of them to a kind that may change files (one of its tools writes files:
// Shell, WriteFile, StrReplaceFile), only those their server marks read-only to the others
// (explore, plan).
func withMCP(kinds map[string]agent.SubagentKind, mcpTools []tools.Tool, e *hooks.Engine) map[string]agent.SubagentKind {
	if len(mcpTools) == 0 {
		return kinds
	}
	all, readOnly := hooks.Wrap(e, mcpTools), hooks.Wrap(e, readOnlyTools(mcpTools))
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

// readOnlyTools returns the tools among ts that say they change nothing (for an MCP tool,
// its server's readOnlyHint).
func readOnlyTools(ts []tools.Tool) []tools.Tool {
	var out []tools.Tool
	for _, t := range ts {
		if t.Facts().ReadOnly {
			out = append(out, t)
		}
	}
	return out
}

// exitHook runs a last action before the immediate exit on a second signal, which skips
// deferred cleanup: it kills the MCP servers' process groups so that none outlives the run.
type exitHook struct{ fn atomic.Pointer[func()] }

func (h *exitHook) set(fn func()) { h.fn.Store(&fn) }

// wrap returns exit (os.Exit when nil) preceded by the hook.
func (h *exitHook) wrap(exit func(int)) func(int) {
	return func(code int) {
		if fn := h.fn.Load(); fn != nil {
			(*fn)()
		}
		if exit == nil {
			exit = os.Exit
		}
		exit(code)
	}
}
