package run

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/model/protocols"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/plugin"
	"github.com/kimi-run/kimi-run/tools/policy"
)

// built is what the build phase made: the agent, its hooks, the MCP servers and the
// names of the root's tools.
type built struct {
	agent   *agent.Agent
	hooks   *hooks.Engine
	servers *mcpRun
	names   []string
}

// build starts the MCP servers and makes the model client, the tools and the agent.
func (r *runState) build(ctx context.Context, in *inputs) (*built, error) {
	s := r.s
	eng, err := r.hookEngine(in)
	if err != nil {
		return nil, err
	}
	r.groups = &tools.ShellGroups{}
	r.tasks = r.newTasks()
	// A second signal ends the process at once: the Shell commands' groups (unless kept)
	// and the background tasks (unless kept alive) are killed first.
	r.stop.shellKill.set(func() {
		if !s.Flags.KeepBackground {
			r.groups.Kill()
		}
		r.tasks.Kill()
	})
	servers := startMCP(ctx, confineServers(r.guard.sandbox, s.MCP, r.warn), r, r.sio.Stderr, s.Output.Quiet, r.version, s.WorkDir, &r.stop.mcpKill)
	r.res.add(servers.close)
	if err := servers.failure(); err != nil {
		return nil, err
	}
	model, err := r.model()
	if err != nil {
		return nil, err
	}
	r.models = model
	// A retried job (same --session, same prompt) picks up its unfinished turn; Ralph and
	// flows start their loop again on the restored conversation.
	resume := in.conv == nil && !in.plan.Looped()
	r.changes = r.trackChanges(in, resume)
	ts := &agentTools{r: r, env: r.toolEnv(in), ws: in.ws, servers: servers, hooks: eng}
	e, l := s.Endpoint, s.Loop
	a := agent.New(agent.Config{
		Model:    withBudget(model, s.Budget, model.Prices),
		Fallback: switchOver(model),
		Sink:     r.sink,
		MaxSteps: l.MaxSteps,
		Compaction: agent.Compaction{MaxContext: e.MaxContext,
			// The Messages API refuses a request whose max_tokens and prompt together pass
			// the window, so an anthropic provider's requests fit it too.
			CapCompletion: (e.KimiProvider || e.Protocol == "anthropic") && e.ContextKnown && e.Generation.CompletionCap >= 0,
			CompletionCap: e.Generation.CompletionCap, Reserve: l.Reserve, TriggerRatio: l.TriggerRatio},
		Retry:     r.retryPolicy(),
		Session:   r.session.File,
		DMail:     in.ws.agent.dmail,
		Tools:     ts.root,
		Subagents: ts.subagents,
		SubagentModel: func(string) error {
			if s.Budget.MaxCost > 0 {
				return errors.New("--max-cost-usd needs the prices of every model the run uses, and another model's are unknown")
			}
			return nil
		},
		SystemPrompt: func([]tools.Tool) string { return in.ws.agent.prompt },
		Lifecycle:    hookLifecycle{e: eng},
		MaxToolCalls: s.Flags.MaxToolCalls,
		Heartbeat:    s.Flags.Heartbeat,
		Inbox:        taskInbox(r.tasks, eng, r.secrets.String),
	})
	if ts.err != nil {
		return nil, ts.err
	}
	r.saveErr = a.SessionError
	a.ResumeTurn = resume
	return &built{agent: a, hooks: eng, servers: servers, names: ts.names}, nil
}

// hookEngine is the engine of the user's hooks, set up for this run.
func (r *runState) hookEngine(in *inputs) (*hooks.Engine, error) {
	eng, err := newHookEngine(r.s.Hooks)
	if err != nil {
		return nil, err
	}
	eng.WorkDir, eng.SessionID, eng.Sink = r.s.WorkDir, r.sessionID, r.sink
	eng.Scrub = r.secrets.Bytes
	// Hooks run confined like Shell commands: a hook script in the work dir can be
	// rewritten by a Shell call, and must not become a way out of the sandbox.
	eng.Launcher = r.launch
	return eng, nil
}

// agentTools picks the root's and the subagents' tools once the agent's delegates exist:
// the built-ins and the MCP tools, hooked, as the agent file picks them, then wrapped by
// the tool rules, the sandbox and the scrubber.
type agentTools struct {
	r       *runState
	env     tools.Env
	ws      *workspace
	servers *mcpRun
	hooks   *hooks.Engine
	// all is every built-in tool, hooked; mcp the MCP tools, unhooked.
	all, mcp []tools.Tool
	// names are the root's tools; err a tool rule that names no tool of the run.
	names []string
	err   error
}

// root is agent.Config.Tools.
func (t *agentTools) root(d agent.Delegates) []tools.Tool {
	r, g := t.r, t.r.guard
	t.env.Subagent, t.env.DMail = d.Subagent, d.DMail
	if len(t.env.SubagentTypes) == 0 {
		t.env.Subagent = nil
	}
	builtins := tools.Builtins(t.env)
	// Plugin tools, then MCP tools, come on top of what the agent file picks, as in Kimi
	// CLI: a plugin tool named like a built-in is left out; MCP tools are named against
	// both. Subagents get them as they get MCP tools (withMCP).
	plugins, warnings := plugin.Tools(r.s.Plugins, r.launch, plugin.Host{BaseURL: config.RedactURL(r.s.Endpoint.BaseURL)}, toolNames(tools.AllBuiltins()))
	for _, w := range warnings {
		r.warnEarly(w)
	}
	t.mcp = append(plugins, t.servers.toolset(append(slices.Clone(builtins), plugins...))...)
	t.all = hooks.Wrap(t.hooks, builtins)
	ts, more := t.ws.agent.rootTools(t.all)
	for _, w := range more {
		r.warnEarly(w)
	}
	ts = append(ts, hooks.Wrap(t.hooks, t.mcp)...)
	// The tool rules and the sandbox go last, around every tool of the run.
	if t.err = g.check(append(toolNames(builtins), toolNames(t.mcp)...), policy.MCPAliases(t.mcp)); t.err != nil {
		return nil
	}
	ts = r.changes.Wrap(scrubTools(g.wrap(ts), r.secrets))
	t.names = toolNames(ts)
	return ts
}

// subagents is agent.Config.Subagents.
func (t *agentTools) subagents([]tools.Tool) map[string]agent.SubagentKind {
	r := t.r
	kinds, warnings := t.ws.agent.subagentKinds(t.all)
	for _, w := range warnings {
		r.warnEarly(w)
	}
	kinds = withMCP(kinds, t.mcp, t.hooks)
	for name, k := range kinds {
		k.Tools = r.changes.Wrap(scrubTools(r.guard.wrap(k.Tools), r.secrets))
		kinds[name] = k
	}
	return kinds
}

// toolEnv is what the built-in tools get from the run.
func (r *runState) toolEnv(in *inputs) tools.Env {
	g, ws := r.guard, in.ws
	return tools.Env{
		WorkDir:       r.s.WorkDir,
		AddDirs:       ws.addDirs,
		SubagentTypes: ws.agent.subagentTypes(),
		ShellGroups:   r.groups,
		Tasks:         r.tasks,
		Ripgrep:       g.sandbox.Ripgrep(r.s.Env.Getenv("PATH")),
		Launcher:      r.launch,
		WriteDirs:     g.sandbox.WriteDirs(),
		Media:         mediaSupport(r.s.Endpoint),
		Search:        r.service(r.s.Services.Search),
		Fetch:         r.service(r.s.Services.Fetch),
		Proxy:         g.sandbox.ProxyURL(),
		Changes:       fileChanges(r.session.Journal),
		Settings:      r.s.Flags.Settings,
		Plan:          tools.NewPlanMode(r.planFile()),
		Todos: func(items []tools.Todo) {
			todo := event.Todo{Items: make([]event.TodoItem, len(items))}
			for i, it := range items {
				todo.Items[i] = event.TodoItem{Title: it.Title, Status: it.Status}
			}
			r.emit(todo)
		},
	}
}

// retryPolicy is the retries of one model call: the settings' attempts, the hidden test
// delays (0: no backoff at all), a replay's own clock.
func (r *runState) retryPolicy() agent.RetryPolicy {
	f := &r.s.Flags
	p := agent.RetryPolicy{Attempts: r.s.Loop.Attempts, BaseDelay: f.RetryBaseDelay, MaxDelay: f.RetryMaxDelay}
	if f.RetryBaseDelay == 0 {
		p.BaseDelay = -1
	}
	r.tape.adjust(&p, r.sio.Stderr, !r.s.Output.NDJSON() && !f.Quiet && (r.s.Output.LogLevel == "info" || r.s.Output.LogLevel == "debug"))
	return p
}

// model is the model client: the endpoint, through the tape and the login, with the
// fallback chain behind it. A fallback of the run's own provider shares its key and login;
// one of another provider has its own key, and never sees the login's token.
func (r *runState) model() (*model.Chain, error) {
	s := r.s
	tapeClient, err := r.tape.client(s, append(r.secrets.List(), r.cred.apiKey), r.version)
	if err != nil {
		return nil, err
	}
	loginClient := r.cred.loginClient(tapeClient, s.Flags.StreamIdleTimeout)
	clientOf := func(e config.Endpoint, key string, client *http.Client) model.Config {
		return model.Config{
			Protocol:      e.Protocol,
			BaseURL:       e.BaseURL,
			APIKey:        key,
			Model:         e.Model,
			IdleTimeout:   s.Flags.StreamIdleTimeout,
			ExtraBody:     e.RequestFields(),
			Headers:       r.headers(e),
			Thinking:      e.Thinking,
			MaxReplyBytes: int64(s.Flags.MaxReplyBytes),
			HTTPClient:    client,
			Project:       e.Project,
			Location:      e.Location,
			// Moonshot reads the media of a tool result in the tool message, as Kimi CLI
			// sends them; other endpoints get them in a user message after the results.
			MediaInToolResults: e.KimiProvider,
			ReasoningKey:       e.ReasoningKey,
		}
	}
	e := s.Endpoint
	ownCfg := clientOf(e, r.cred.apiKey, loginClient)
	ownCfg.Predial = r.ahead
	own, err := protocols.New(ownCfg)
	if err != nil {
		return nil, err
	}
	links := []model.Link{{Model: own, Name: e.Model, ID: e.Model, Provider: e.Protocol,
		Prices: s.Budget.Prices, Window: e.MaxContext, CapCompletion: capsCompletion(e)}}
	for _, fb := range s.Fallbacks {
		key, client := fb.Endpoint.APIKey, tapeClient
		if fb.SameProvider {
			key, client = r.cred.apiKey, loginClient
		}
		m, err := protocols.New(clientOf(fb.Endpoint, key, client))
		if err != nil {
			return nil, usagef("fallback model %q: %w", fb.Name, err)
		}
		links = append(links, model.Link{Model: m, Name: fb.Name, ID: fb.Endpoint.Model, Provider: fb.Endpoint.Protocol,
			Prices: fb.Prices, Window: fb.Endpoint.MaxContext, CapCompletion: capsCompletion(fb.Endpoint)})
	}
	chain := model.NewChain(links...)
	chain.Other = func(id string) (model.Model, error) {
		cfg := ownCfg
		cfg.Model, cfg.Predial = id, nil
		return protocols.New(cfg)
	}
	return chain, nil
}

// capsCompletion says whether requests to the endpoint e carry a completion cap (see
// agent.Compaction.CapCompletion).
func capsCompletion(e config.Endpoint) bool {
	return e.KimiProvider && e.ContextKnown && e.Generation.CompletionCap >= 0
}

// switchOver moves the chain on to its next model and tells the agent which
// (agent.Agent.Fallback); ok is false when none is left.
func switchOver(chain *model.Chain) func() (agent.Switch, bool) {
	return func() (agent.Switch, bool) {
		from, to, ok := chain.Next()
		return agent.Switch{From: from.ID, To: to.Name, Provider: to.Provider, MaxContext: to.Window, CapCompletion: to.CapCompletion}, ok
	}
}

// headers are the request headers of every model call to the endpoint e: our User-Agent
// and the provider's custom headers, which may replace it.
func (r *runState) headers(e config.Endpoint) map[string]string {
	h := map[string]string{"User-Agent": "kimi-run/" + r.version}
	for k, v := range e.Headers {
		h[k] = v
	}
	return h
}

// planFile is where EnterPlanMode's plan is written: in the sandbox's temp dir under
// --sandbox (the one place outside the work dir it lets the tools write), else beside the
// session's conversation, or in the temporary directory when the session is not saved.
func (r *runState) planFile() string {
	if dir := r.guard.sandbox.TempDir(); dir != "" {
		return filepath.Join(dir, "plan.md")
	}
	if f := r.session.File; f != nil {
		return filepath.Join(filepath.Dir(f.Path()), "plan.md")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("kimi-run-plan-%d.md", os.Getpid()))
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
