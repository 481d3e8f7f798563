package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/tools"
	"github.com/kimi-run/kimi-run/tools/mcp"
)

// outcome is what the run produced, whichever way it ran (one turn, Ralph or a flow).
type outcome struct {
	finalText  string
	stop       event.StopReason
	flow       bool // Ralph or a flow ran
	flowResult ralph.Result
	// structured is the final answer as compact JSON, when --json-schema accepted it.
	structured json.RawMessage
}

// execute runs a parsed command line and returns the exit code. It is the composition
// root: resolve the settings, start (output, signals), open (prompt, workspace, session),
// build (MCP, model, agent), begin (init), work, finish. Every phase that fails ends the
// run with the result event; what the phases opened is closed once, at the end.
func execute(f *config.Flags, sio IO, version string) ExitCode {
	started := time.Now()
	s, resolveErr := config.Resolve(*f, sio.env())
	r, ctx := start(s, sio, version, started)
	defer r.res.close()
	in, err := r.open(ctx, resolveErr)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	b, err := r.build(ctx, in)
	if err != nil {
		// The run never started: an empty new session would only be noise.
		r.session.dropIfNew()
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	if err := r.begin(b); err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	out, err := r.work(ctx, in, b)
	return r.finish(ctx, out, b.agent.Stats(), err)
}

// inputs are what the open phase found: the prompt (or the conversation on stdin), the
// plan, the workspace and the environment of the run's children.
type inputs struct {
	prompt   string
	conv     *conversation
	plan     plan
	ws       *workspace
	childEnv []string
}

// open checks what must be right before anything is built, in the order a user fixes
// it: the answer file, the settings, the login, the prompt, the workspace and the plan;
// then it opens the session.
func (r *runState) open(ctx context.Context, resolveErr error) (*inputs, error) {
	s, f := r.s, &r.s.Flags
	if r.answerFile != "" {
		// Found now rather than after the run has paid for its answer.
		if err := checkAnswerFile(r.answerFile); err != nil {
			r.answerFile = ""
			return nil, err
		}
	}
	if resolveErr != nil {
		return nil, resolveErr
	}
	if err := r.login(ctx); err != nil {
		return nil, err
	}
	for _, msg := range append(r.telWarnings, s.Warnings...) {
		r.warnEarly(msg)
	}
	in := &inputs{}
	var err error
	if f.Conversing() {
		in.conv, err = openConversation(ctx, s, r.sio.Stdin, r.warnEarly)
		if in.conv != nil {
			in.prompt = in.conv.first
		}
	} else {
		in.prompt, err = readPrompt(ctx, s, r.sio.Stdin, f.Flow != "", r.warnEarly)
	}
	if err != nil {
		return nil, err
	}
	if r.tel != nil {
		r.tel.SetPrompt(in.prompt)
	}
	if err := r.prepareWorkspace(in); err != nil {
		return nil, err
	}
	return in, r.openSession(ctx, in.prompt)
}

// login puts a stored Kimi login's token in place of the key, so that it is scrubbed like
// one. A missing login is a usage error; one that has expired is reported once the
// stream has opened.
func (r *runState) login(ctx context.Context) error {
	var err error
	r.cred, err = useLogin(ctx, r.s.Endpoint, func(msg string) { fmt.Fprintf(r.sio.Stderr, "kimi-run: warning: %s\n", msg) })
	r.secret = r.cred.apiKey
	r.secrets.add(r.cred.apiKey)
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	r.loginErr = err
	return nil
}

// prepareWorkspace checks the extra directories, the tool rules and the sandbox, renders
// the agent's prompts, plans the run and checks that the prompt fits the model.
func (r *runState) prepareWorkspace(in *inputs) error {
	s, f, warn := r.s, &r.s.Flags, r.warnEarly
	if err := createAddDirs(f.AddDir, warn); err != nil {
		return err
	}
	g, err := newGuard(s)
	if err != nil {
		return err
	}
	r.res.add(g.sandbox.close)
	r.guard = g
	if in.ws, err = setupWorkspace(s, g.sandbox.promptNote(), warn); err != nil {
		return err
	}
	if err := applySystemPrompt(f, in.ws.agent); err != nil {
		return err
	}
	if in.plan, err = planRun(s, in.ws.skills, in.prompt); err != nil {
		return err
	}
	if in.plan.images, err = loadImages(s); err != nil {
		return err
	}
	// Commands, hooks and MCP servers get the environment without kimi-run's credentials.
	in.childEnv = childEnviron(s.Env.Environ(), r.secrets, f.PassEnv)
	if len(s.MCP.Servers) == 0 {
		// Every tool is a built-in: a rule that names none of them is refused now, before
		// a session directory is made for a run that cannot start.
		if err := g.check(toolNames(tools.Builtins(tools.Env{WorkDir: s.WorkDir})), nil); err != nil {
			return err
		}
	}
	msg, err := checkPromptSize(in.plan, s.Endpoint, in.ws.agent.prompt)
	if err != nil {
		return err
	}
	if msg != "" {
		warn(msg)
	}
	return nil
}

// openSession creates or resumes the run's session and records the run in it.
func (r *runState) openSession(ctx context.Context, prompt string) error {
	sess, err := openSession(ctx, r.s, r.secret, r.warnEarly)
	if err != nil {
		return err
	}
	r.session, r.sessionID = sess, sess.id
	r.res.add(sess.close)
	r.announceSession(r.warnEarly, r.s.Output.Quiet)
	if err := r.session.begin(metaPrompt(r.s.Flags.Flow, prompt), r.s.WorkDir, time.Now()); err != nil {
		r.warnEarly(err.Error())
	}
	return nil
}

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
	s, f := r.s, &r.s.Flags
	g, ws := r.guard, in.ws
	eng, err := newHookEngine(s.Hooks)
	if err != nil {
		return nil, err
	}
	eng.WorkDir, eng.SessionID, eng.Sink = s.WorkDir, r.sessionID, r.sink
	eng.Env, eng.Scrub = in.childEnv, r.secrets.scrubBytes
	// Hooks run confined like Shell commands: a hook script in the work dir can be
	// rewritten by a Shell call, and must not become a way out of the sandbox.
	eng.Prefix = g.sandbox.shellPrefix()
	eng.Watch = r.watch
	r.groups = &tools.ShellGroups{}
	if !f.KeepBackground {
		r.shellKill.set(r.groups.Kill)
		r.groups.Watch = r.watch // kept groups are meant to outlive kimi-run
	}
	servers := startMCP(ctx, mcpWithEnv(s.MCP, in.childEnv), r, r.sio.Stderr, s.Output.Quiet, r.version, s.WorkDir, &r.mcpKill)
	r.res.add(servers.close)
	if err := servers.failure(); err != nil {
		return nil, err
	}
	model, err := r.model()
	if err != nil {
		return nil, err
	}
	b := &built{hooks: eng, servers: servers}
	env := r.toolEnv(in, ws)
	var all []tools.Tool // every built-in tool, hooked; the agent file picks the root's and subagents'
	var mcpTools []tools.Tool
	var guardErr error
	b.agent = agent.New(agent.Config{
		Model:    withBudget(model, s.Budget),
		Fallback: model.switchOver,
		Sink:     r.sink,
		MaxSteps: s.Loop.MaxSteps,
		Compaction: agent.Compaction{MaxContext: s.Endpoint.MaxContext,
			CapCompletion: s.Endpoint.KimiProvider && s.Endpoint.ContextKnown && s.Endpoint.Generation.CompletionCap >= 0,
			CompletionCap: s.Endpoint.Generation.CompletionCap, Reserve: s.Loop.Reserve, TriggerRatio: s.Loop.TriggerRatio},
		Retry:   r.retryPolicy(),
		Session: r.session.session,
		DMail:   ws.agent.dmail,
		Tools: func(d agent.Delegates) []tools.Tool {
			env.Subagent, env.DMail = d.Subagent, d.DMail
			if len(env.SubagentTypes) == 0 {
				env.Subagent = nil
			}
			builtins := tools.Builtins(env)
			// MCP tools are named against every built-in, and come on top of what the
			// agent file picks, as in Kimi CLI.
			mcpTools = servers.toolset(builtins)
			all = hooks.Wrap(eng, builtins)
			ts, warnings := ws.agent.rootTools(all)
			for _, w := range warnings {
				r.warnEarly(w)
			}
			ts = append(ts, hooks.Wrap(eng, mcpTools)...)
			// The tool rules and the sandbox go last, around every tool of the run.
			if guardErr = g.check(append(toolNames(builtins), toolNames(mcpTools)...), mcpAliases(mcpTools)); guardErr != nil {
				return nil
			}
			ts = scrubTools(g.wrap(ts, r.emit), r.secrets)
			b.names = toolNames(ts)
			return ts
		},
		Subagents: func([]tools.Tool) map[string]agent.SubagentKind {
			kinds, warnings := ws.agent.subagentKinds(all)
			for _, w := range warnings {
				r.warnEarly(w)
			}
			kinds = withMCP(kinds, mcpTools, eng)
			for name, k := range kinds {
				k.Tools = scrubTools(g.wrap(k.Tools, r.emit), r.secrets)
				kinds[name] = k
			}
			return kinds
		},
		SystemPrompt: func([]tools.Tool) string { return ws.agent.prompt },
		Lifecycle:    hookLifecycle{e: eng},
	})
	if guardErr != nil {
		return nil, guardErr
	}
	r.saveErr = b.agent.SessionError
	// A retried job (same --session, same prompt) picks up its unfinished turn; Ralph and
	// flows start their loop again on the restored conversation.
	b.agent.ResumeTurn = in.conv == nil && in.plan.flow == nil && in.plan.ralph == 0
	return b, nil
}

// mcpWithEnv gives each stdio server the children's environment with its own "env"
// entries on top.
func mcpWithEnv(m config.MCP, base []string) config.MCP {
	servers := make([]mcp.Server, len(m.Servers))
	for i, srv := range m.Servers {
		if srv.Transport == mcp.Stdio {
			srv.Env = config.OverlayEnv(base, srv.Env)
		}
		servers[i] = srv
	}
	m.Servers = servers
	return m
}

// toolEnv is what the built-in tools get from the run.
func (r *runState) toolEnv(in *inputs, ws *workspace) tools.Env {
	g := r.guard
	return tools.Env{
		WorkDir:       r.s.WorkDir,
		AddDirs:       ws.addDirs,
		SubagentTypes: ws.agent.subagentTypes(),
		ShellGroups:   r.groups,
		Ripgrep:       tools.LookRipgrep(),
		ShellPrefix:   g.sandbox.shellPrefix(),
		Environ:       in.childEnv,
		WriteDirs:     g.sandbox.writeDirs(),
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
	r.tape.adjust(&p, r.sio.Stderr, !r.jsonMode && !f.Quiet && (r.s.Output.LogLevel == "info" || r.s.Output.LogLevel == "debug"))
	return p
}

// model is the model client: the endpoint, through the tape and the login, with the
// fallback model behind it.
func (r *runState) model() (*fallbackModel, error) {
	s := r.s
	httpClient, err := r.tape.client(s, r.cred.apiKey, r.version)
	if err != nil {
		return nil, err
	}
	httpClient = r.cred.loginClient(httpClient, s.Flags.StreamIdleTimeout)
	e := s.Endpoint
	return withFallback(agent.OpenAIConfig{
		BaseURL:       e.BaseURL,
		APIKey:        r.cred.apiKey,
		Model:         e.Model,
		IdleTimeout:   s.Flags.StreamIdleTimeout,
		ExtraBody:     e.RequestFields(),
		Headers:       headers(e.Headers, r.version),
		SendReasoning: e.Thinking != nil && *e.Thinking,
		HTTPClient:    httpClient,
	}, s.Flags.FallbackModel), nil
}

// begin opens the event stream with init, then the warnings that waited for it, and
// restores a resumed session's conversation.
func (r *runState) begin(b *built) error {
	s, sess := r.s, r.session
	r.emit(event.Init{
		SchemaVersion: event.SchemaVersion, SessionID: r.sessionID, Model: s.Endpoint.Model,
		BaseURLHost: hostOf(s.Endpoint.BaseURL), WorkDir: s.WorkDir, Tools: b.names, Version: r.version,
		MCPServers: b.servers.initInfo(),
	})
	for _, msg := range append(r.early, b.servers.warnings()...) {
		r.warn(msg)
	}
	if w := rootWarning(s.Flags.Sandbox, os.Geteuid(), s.Env.Getenv, fileExists, os.ReadFile); w != "" {
		r.warn(w)
	}
	if sess.warning != "" {
		r.warn(sess.warning)
	}
	if r.loginErr != nil {
		return r.loginErr
	}
	if sess.restored != nil {
		if w := systemPromptKept(&s.Flags, sess.id); w != "" {
			r.warn(w)
		}
		for _, w := range sess.restored.Warnings {
			r.warn("session " + sess.id + ": " + w)
		}
		b.agent.Restore(sess.restored)
	}
	return nil
}

// work runs the prompt (its turn, Ralph loop or flow) or the conversation on stdin,
// between the session's hooks, and settles the tape.
func (r *runState) work(ctx context.Context, in *inputs, b *built) (outcome, error) {
	rh := &runHooks{e: b.hooks, secret: r.cred.apiKey}
	r.hooks = rh
	source := "startup"
	if r.session.restored != nil {
		source = "resume"
	}
	rh.sessionStart(ctx, source)
	var out outcome
	var err error
	if in.conv != nil {
		out, err = in.conv.run(ctx, r, in.plan, messageRunner{s: r.s, skills: in.ws.skills, agent: b.agent, sink: r.sink, hooks: rh, warn: r.warn})
	} else {
		out, err = rh.around(ctx, in.prompt, b.agent, func(t ralph.Turner) (outcome, error) {
			return runPlan(ctx, r.s, in.plan, t, b.agent, r.sink, r.warn)
		})
	}
	return out, r.tape.finish(r, out, err)
}
