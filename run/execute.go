package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kimi-run/kimi-run/event"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/hooks"
	"github.com/kimi-run/kimi-run/internal/procgroup"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/sandbox"
	"github.com/kimi-run/kimi-run/tools"
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

// execute runs a parsed command line and returns the exit code.
func execute(cli *CLI, sio IO, version string) ExitCode {
	started := time.Now()
	compatErr := normalizeKimi(cli)
	jsonMode := cli.OutputFormat == "stream-json"
	// Scrub the keys from both streams: those in the environment now, the config file's
	// once it is read, before anything else is written.
	secrets := &secretSet{}
	for _, k := range credentialVars {
		secrets.add(sio.Getenv(k))
	}
	stdout, stderr := newRedactWriter(sio.Stdout, secrets), newRedactWriter(sio.Stderr, secrets)
	rawStderr := sio.Stderr
	sio.Stdout, sio.Stderr = stdout, stderr
	if jsonMode {
		// stderr has only kimi-run's plain lines here, never colour: neutralize all of it.
		sio.Stderr = neutralWriter{stderr}
	}
	// warn and error keep only what went wrong: no MCP servers' chatter either.
	quiet := cli.Quiet || cli.LogLevel == "warn" || cli.LogLevel == "error"
	var sink output.Sink
	textOpts := output.TextOptions{
		Quiet:    cli.Quiet,
		MinLevel: cli.LogLevel,
		Color:    colorOK(rawStderr, sio.Getenv),
		Verbose:  cli.LogLevel == "debug",
		// Under --json-schema stdout carries only the JSON that matched it.
		JSONOnly:  cli.JSONSchema != "",
		WaitScale: replayWaits(cli),
	}
	switch {
	case cli.kimiMessages():
		sink = output.NewKimi(sio.Stdout, sio.Stderr, output.KimiOptions{FinalOnly: cli.FinalMessageOnly})
	case jsonMode:
		sink = output.NewJSON(sio.Stdout)
	case cli.OutputFormat == "json":
		// One JSON object on stdout at the end, the progress of text mode on stderr.
		sink = output.NewFinal(sio.Stdout, output.NewText(io.Discard, sio.Stderr, textOpts))
	default:
		sink = output.NewText(sio.Stdout, sio.Stderr, textOpts)
	}
	var noticeTo io.Writer // in stream-json mode stdout is for events; a person reads stderr
	if jsonMode {
		noticeTo = sio.Stderr
	}
	if !jsonMode {
		// Text for a person: no terminal control from tool output or the model.
		sink = terminalSafe{sink}
	}
	sink = newStallWatch(sink, cli.StallNotice, cli.StreamIdleTimeout, noticeTo)
	// OpenTelemetry, when an OTLP endpoint is set: it watches every event, and its last
	// export (bounded) is the last thing the run does.
	tel, telWarnings := startTelemetry(cli, sio.Getenv, version, secrets)
	if tel != nil {
		sink = telemetrySink{Sink: sink, t: tel}
		defer stopTelemetry(tel, sio.Stderr, secrets)
	}
	r := &runState{sink: sink, sio: sio, jsonMode: jsonMode, started: started, keep: cli.KeepBackground,
		answerFile: cli.OutputLastMessage, answerJSON: cli.JSONSchema != "", scrub: stdout.scrub}

	// The watchdog kills what the run's children left in their groups should kimi-run die
	// without ending them (SIGKILL); it starts with the first child. Close, deferred first,
	// runs last: after the result, the MCP servers' shutdown and the background groups'.
	r.watch = &procgroup.Watcher{Exe: sandbox.SelfExe}
	defer r.watch.Close()

	var mcpKill exitHook   // a second signal exits at once: kill the MCP servers first
	var shellKill exitHook // ... and the Shell commands' process groups
	sio.Exit = shellKill.wrap(mcpKill.wrap(sio.Exit))
	ctx, stop := withSignals(context.Background(), sio)
	defer stop()
	if cli.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, cli.Timeout, errTimeout)
		defer cancel()
	}

	if r.answerFile != "" {
		// Found now rather than after the run has paid for its answer.
		if err := checkAnswerFile(r.answerFile); err != nil {
			r.answerFile = ""
			return r.finish(ctx, outcome{}, agent.Stats{}, err)
		}
	}
	if compatErr != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, compatErr)
	}
	if err := checkFlagValues(cli); err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	tp, err := openTape(cli) // before resolve: a replay brings its endpoint and model
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	defer tp.close()
	ctx = tp.bind(ctx)
	sink = tp.track(sink)
	cfg, err := resolve(cli, sio.Getenv)
	// A stored Kimi login gives the key now, so that it is scrubbed like one. A missing
	// login is a usage error; one that has expired is reported once the stream has opened.
	var loginErr error
	if err == nil {
		loginErr = useLogin(ctx, &cfg, func(msg string) { fmt.Fprintf(sio.Stderr, "kimi-run: warning: %s\n", msg) })
		var ue *usageError
		if errors.As(loginErr, &ue) {
			err, loginErr = loginErr, nil
		}
	}
	r.secret = cfg.apiKey
	r.budget = cfg.budget
	secrets.add(cfg.apiKey)
	for _, k := range cfg.configKeys {
		secrets.add(k)
	}
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	ralphFromConfig(cli, cfg)
	// Warnings found before init: the NDJSON stream must open with init, so there they wait
	// for it (and reach stderr at once, since one of them says what the run is waiting for).
	var early []string
	warn := func(msg string) {
		if jsonMode {
			fmt.Fprintf(sio.Stderr, "kimi-run: %s\n", msg)
			if !cli.kimiMessages() { // that sink writes warnings to stderr itself
				early = append(early, msg)
			}
			return
		}
		r.emit(event.Warning{Message: msg})
	}
	for _, msg := range append(telWarnings, cfg.warnings...) {
		warn(msg)
	}
	defaultStdinTimeout(cli, sio.Getenv)
	var conv *conversation
	var prompt string
	if cli.conversing() {
		conv, err = openConversation(ctx, cli, sio.Stdin, warn)
		prompt = conv.first
	} else {
		prompt, err = readPrompt(ctx, cli, sio.Stdin, cli.Flow != "", warn)
	}
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	if tel != nil {
		tel.SetPrompt(prompt)
	}
	if err := createAddDirs(cli, warn); err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	g, err := newGuard(cli, cfg.workDir, sio.Getenv)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	defer g.sandbox.close()
	r.guard = g
	ws, err := setupWorkspace(cli, cfg, sio.Getenv, g.sandbox.promptNote(), warn)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	if err := applySystemPrompt(cli, ws.agent); err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	plan, err := planRun(cli, ws.skills, prompt)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	if plan.images, err = loadImages(cli, cfg); err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	// Commands, hooks and MCP servers get the environment without kimi-run's credentials.
	childEnv := childEnviron(os.Environ(), secrets, cli.PassEnv)
	mcpPlan, err := planMCP(cli, sio.Getenv, childEnv, cfg.workDir, cfg.mcpCallTimeout)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	if len(mcpPlan.servers) == 0 {
		// Every tool is a built-in: a rule that names none of them is refused now, before
		// a session directory is made for a run that cannot start.
		if err := g.check(toolNames(tools.Builtins(tools.Env{WorkDir: cfg.workDir})), nil); err != nil {
			return r.finish(ctx, outcome{}, agent.Stats{}, err)
		}
	}
	if msg, err := checkPromptSize(plan, cfg, ws.agent.prompt); err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	} else if msg != "" {
		warn(msg)
	}
	sess, err := openSession(ctx, cli, cfg.workDir, sio.Getenv, cfg.apiKey, warn)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	r.session = sess
	r.sessionID = sess.id
	defer sess.close()
	r.announceSession(warn, quiet)
	if err := r.session.begin(metaPrompt(cli, prompt), cfg.workDir, time.Now()); err != nil {
		warn(err.Error())
	}

	cfg.hooks.WorkDir, cfg.hooks.SessionID, cfg.hooks.Sink = cfg.workDir, sess.id, sink
	cfg.hooks.Env, cfg.hooks.Scrub = childEnv, secrets.scrubBytes
	// Hooks run confined like Shell commands: a hook script in the work dir can be
	// rewritten by a Shell call, and must not become a way out of the sandbox.
	cfg.hooks.Prefix = g.sandbox.shellPrefix()
	cfg.hooks.Watch = r.watch
	r.groups = &tools.ShellGroups{}
	if !cli.KeepBackground {
		shellKill.set(r.groups.Kill)
		r.groups.Watch = r.watch // kept groups are meant to outlive kimi-run
	}
	env := tools.Env{
		WorkDir:       cfg.workDir,
		AddDirs:       ws.addDirs,
		SubagentTypes: ws.agent.subagentTypes(),
		ShellGroups:   r.groups,
		Ripgrep:       tools.LookRipgrep(),
		ShellPrefix:   g.sandbox.shellPrefix(),
		Environ:       childEnv,
		WriteDirs:     g.sandbox.writeDirs(),
		Todos: func(items []tools.Todo) {
			todo := event.Todo{Items: make([]event.TodoItem, len(items))}
			for i, it := range items {
				todo.Items[i] = event.TodoItem{Title: it.Title, Status: it.Status}
			}
			r.emit(todo)
		},
	}
	retryPolicy := agent.RetryPolicy{
		Attempts:  cfg.attempts,
		BaseDelay: cli.RetryBaseDelay,
		MaxDelay:  cli.RetryMaxDelay,
	}
	if cli.RetryBaseDelay == 0 {
		retryPolicy.BaseDelay = -1 // no backoff at all
	}
	servers := startMCP(ctx, mcpPlan, r, sio.Stderr, quiet, version, cfg.workDir, &mcpKill)
	defer servers.close()
	if err := servers.failure(); err != nil {
		sess.dropIfNew()
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	httpClient, err := tp.client(cfg, cli, version)
	if err != nil {
		sess.dropIfNew()
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	httpClient = cfg.loginClient(httpClient, cli.StreamIdleTimeout)
	tp.adjust(&retryPolicy, sio.Stderr, !jsonMode && !cli.Quiet && (cli.LogLevel == "info" || cli.LogLevel == "debug"))
	var names []string
	var all []tools.Tool // every built-in tool, hooked; the agent file picks the root's and subagents'
	var mcpTools []tools.Tool
	var guardErr error
	model := withFallback(agent.OpenAIConfig{
		BaseURL:       cfg.baseURL,
		APIKey:        cfg.apiKey,
		Model:         cfg.model,
		IdleTimeout:   cli.StreamIdleTimeout,
		ExtraBody:     cfg.requestFields(),
		Headers:       headers(cfg.headers, version),
		SendReasoning: cfg.thinking != nil && *cfg.thinking,
		HTTPClient:    httpClient,
	}, cli.FallbackModel)
	a := agent.New(agent.Config{
		Model:    withBudget(model, cfg.budget),
		Fallback: model.switchOver,
		Sink:     sink,
		MaxSteps: cfg.maxSteps,
		Compaction: agent.Compaction{MaxContext: cfg.maxContext, CapCompletion: cfg.kimiProvider && cfg.contextKnown && cfg.gen.completionCap >= 0,
			CompletionCap: cfg.gen.completionCap, Reserve: cfg.reserve, TriggerRatio: cfg.triggerRatio},
		Retry:   retryPolicy,
		Session: sess.session,
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
			all = hooks.Wrap(cfg.hooks, builtins)
			ts, warnings := ws.agent.rootTools(all)
			for _, w := range warnings {
				warn(w)
			}
			ts = append(ts, hooks.Wrap(cfg.hooks, mcpTools)...)
			// The tool rules and the sandbox go last, around every tool of the run.
			if guardErr = g.check(append(toolNames(builtins), toolNames(mcpTools)...), mcpAliases(mcpTools)); guardErr != nil {
				return nil
			}
			ts = scrubTools(g.wrap(ts, r.emit), secrets)
			names = toolNames(ts)
			return ts
		},
		Subagents: func([]tools.Tool) map[string]agent.SubagentKind {
			kinds, warnings := ws.agent.subagentKinds(all)
			for _, w := range warnings {
				warn(w)
			}
			kinds = withMCP(kinds, mcpTools, cfg.hooks)
			for name, k := range kinds {
				k.Tools = scrubTools(g.wrap(k.Tools, r.emit), secrets)
				kinds[name] = k
			}
			return kinds
		},
		SystemPrompt: func([]tools.Tool) string { return ws.agent.prompt },
		Lifecycle:    hookLifecycle{e: cfg.hooks},
	})
	if guardErr != nil {
		sess.dropIfNew()
		return r.finish(ctx, outcome{}, agent.Stats{}, guardErr)
	}
	r.saveErr = a.SessionError
	// A retried job (same --session, same prompt) picks up its unfinished turn; Ralph and
	// flows start their loop again on the restored conversation.
	a.ResumeTurn = conv == nil && plan.flow == nil && plan.ralph == 0
	r.emit(event.Init{
		SchemaVersion: event.SchemaVersion, SessionID: r.sessionID, Model: cfg.model,
		BaseURLHost: hostOf(cfg.baseURL), WorkDir: cfg.workDir, Tools: names, Version: version,
		MCPServers: servers.initInfo(),
	})
	for _, msg := range append(early, servers.warnings()...) {
		r.emit(event.Warning{Message: msg})
	}
	if w := rootWarning(cli.Sandbox, os.Geteuid(), sio.Getenv, fileExists, os.ReadFile); w != "" {
		r.emit(event.Warning{Message: w})
	}
	if sess.warning != "" {
		r.emit(event.Warning{Message: sess.warning})
	}
	if loginErr != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, loginErr)
	}
	if sess.restored != nil {
		if w := systemPromptKept(cli, sess.id); w != "" {
			r.emit(event.Warning{Message: w})
		}
		for _, w := range sess.restored.Warnings {
			r.emit(event.Warning{Message: "session " + sess.id + ": " + w})
		}
		a.Restore(sess.restored)
	}

	rh := &runHooks{e: cfg.hooks, secret: cfg.apiKey}
	r.hooks = rh
	source := "startup"
	if sess.restored != nil {
		source = "resume"
	}
	rh.sessionStart(ctx, source)
	var out outcome
	if conv != nil {
		out, err = conv.run(ctx, r, plan, messageRunner{cli: cli, skills: ws.skills, agent: a, sink: sink, hooks: rh, warn: r.warn})
	} else {
		out, err = rh.around(ctx, prompt, a, func(t ralph.Turner) (outcome, error) {
			return runPlan(ctx, cli, plan, t, a, sink, r.warn)
		})
	}
	err = tp.finish(r, out, err)
	return r.finish(ctx, out, a.Stats(), err)
}

// runPlan runs the plan's turn, Ralph loop or flow through t. Under --json-schema every
// prompt carries the schema, and an answer that does not match it is asked for again.
func runPlan(ctx context.Context, cli *CLI, plan plan, t ralph.Turner, rw ralph.Rewinder, sink event.Sink, warn func(string)) (outcome, error) {
	if plan.schema != nil {
		t = schemaTurner{Turner: t, note: plan.schema.instruction(plan.flow != nil || plan.ralph != 0)}
	}
	if len(plan.images) > 0 {
		t = &imageTurner{Turner: t, images: plan.images}
	}
	var out outcome
	var err error
	if plan.flow == nil && plan.ralph == 0 {
		var res event.TurnOutcome
		res, err = t.Turn(ctx, event.TurnSpec{Prompt: plan.prompt})
		out = outcome{finalText: res.FinalText, stop: res.StopReason}
	} else {
		runner := &ralph.Runner{Turner: t, Rewinder: rw, Sink: sink}
		var res ralph.Result
		if plan.flow != nil {
			res, err = runner.Run(ctx, plan.flow, ralph.Options{MaxMoves: plan.moves, Fresh: cli.RalphFresh, Request: plan.request})
		} else {
			res, err = runner.Ralph(ctx, plan.prompt, ralph.RalphOptions{Extra: plan.ralph, Fresh: cli.RalphFresh})
		}
		out = outcome{finalText: ralph.StripChoice(res.FinalText), stop: res.StopReason, flow: true, flowResult: res}
	}
	if plan.schema != nil && schemaDue(out, err) {
		out, err = plan.schema.settle(ctx, t, out, warn)
	}
	return out, err
}

func toolNames(ts []tools.Tool) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return names
}

// plan is what a run will do, decided before any model call so that a bad flow file or an
// unknown skill is a usage error.
type plan struct {
	prompt string
	flow   *ralph.Flow
	moves  int
	ralph  int
	// request is the user's request shown with every node of a flow.
	request string
	// schema is --json-schema, compiled; nil without one.
	schema *outputSchema
	// images are --image, attached to the first prompt.
	images []event.Image
}

func planRun(cli *CLI, skills *ralph.Skills, prompt string) (plan, error) {
	p := plan{prompt: prompt, ralph: cli.Ralph}
	var err error
	if p.schema, err = loadSchema(cli.JSONSchema); err != nil {
		return p, err
	}
	if cli.Ralph < -1 {
		return p, usagef("--ralph must be -1 (no limit), 0 (off) or a positive number of extra iterations")
	}
	if cli.Flow != "" {
		if cli.Ralph != 0 {
			return p, usagef("--flow and --ralph cannot be combined")
		}
		f, err := ralph.LoadFlow(cli.Flow)
		if err != nil {
			return p, usagef("flow: %w", err)
		}
		if err := f.Validate(); err != nil {
			return p, usagef("flow: %w", err)
		}
		// The flow's nodes are the prompts; a prompt given with it is the user's request.
		p.flow, p.moves, p.request, p.prompt = f, cli.MaxMoves, prompt, ""
		return p, nil
	}
	exp, err := ralph.ExpandPrompt(skills, prompt)
	if err != nil {
		return p, usagef("%w", err)
	}
	if exp.Flow != nil {
		p.flow, p.moves, p.ralph, p.request = exp.Flow, exp.MaxMoves, 0, exp.Request
		return p, nil
	}
	p.prompt = exp.Prompt
	return p, nil
}

// runState carries what finishing a run needs.
type runState struct {
	sink      output.Sink
	sio       IO
	jsonMode  bool
	started   time.Time
	sessionID string
	session   sessionPlan
	secret    string
	// hooks, once the session started, fire SessionEnd when the run finishes.
	hooks *runHooks
	// groups holds the process groups of the run's Shell commands; keep leaves them alone.
	groups *tools.ShellGroups
	// watch lists the groups of every child with the run's watchdog.
	watch  *procgroup.Watcher
	keep   bool
	budget budgetConfig
	guard  *guard
	// answerFile is --output-last-message; scrub cleans what is written there. With
	// answerJSON (--json-schema) it gets what stdout gets: the matching JSON or nothing.
	answerFile string
	answerJSON bool
	scrub      func(string) string
	// saveErr reports the agent's first failure to write the session.
	saveErr func() error
}

// warn emits a warning event.
func (r *runState) warn(msg string) { r.emit(event.Warning{Message: msg}) }

func (r *runState) emit(p event.Payload) {
	r.sink.Emit(event.Event{Time: time.Now(), Data: p})
}

// finish emits the result event (always the last one) and returns the exit code.
func (r *runState) finish(ctx context.Context, out outcome, st agent.Stats, err error) ExitCode {
	r.endBackground()
	v := judge(out, err, context.Cause(ctx))
	res := event.Result{
		Status:         "success",
		TerminalReason: v.reason,
		ExitCode:       int(v.code),
		FinalText:      out.finalText,
		Error:          v.err,
		Steps:          st.Steps,
		ToolCalls:      st.ToolCalls,
		Usage: event.UsageTotals{InputTokens: st.Usage.InputTokens, OutputTokens: st.Usage.OutputTokens, CachedTokens: st.Usage.CachedTokens, ReasoningTokens: st.Usage.ReasoningTokens,
			CostUSD: r.budget.costUSD(st.Usage)},
		DurationMS: time.Since(r.started).Milliseconds(),
		SessionID:  r.sessionID,
	}
	if v.code == ExitOK {
		res.StructuredOutput = out.structured
	}
	if r.guard != nil {
		res.ToolDenials = int(r.guard.denials.Load())
	}
	if out.flow {
		res.Iterations = out.flowResult.Iterations
		res.LastChoice = out.flowResult.LastChoice
	}
	if r.answerFile != "" {
		// Every outcome writes it, usage errors included, so that a later step never
		// reads the answer of an earlier run.
		text := out.finalText
		if r.answerJSON {
			text = string(res.StructuredOutput)
		}
		if err := writeAnswer(r.answerFile, text, r.scrub); err != nil && v.code == ExitOK {
			// The job asked for the answer in a file and it is not there: not a success.
			v = verdict{code: ExitError, reason: "error", err: &event.ErrorInfo{Kind: "output", Message: err.Error()}}
			res.TerminalReason, res.ExitCode, res.Error = v.reason, int(v.code), v.err
		} else if err != nil {
			r.emit(event.Warning{Message: err.Error()})
		}
	}
	if v.code != ExitOK {
		res.Status = "error"
	}
	if res.Error != nil {
		res.Error.Message = redact(res.Error.Message, r.secret)
		if r.jsonMode {
			// stdout stays pure NDJSON; a person reading the CI log still sees why.
			fmt.Fprintf(r.sio.Stderr, "kimi-run: %s\n", res.Error.Message)
		}
	}
	if r.hooks != nil {
		r.hooks.sessionEnd(ctx, v)
	}
	res.SessionWarning = r.settleSession(v)
	r.emit(res)
	if werr := r.sink.Err(); werr != nil && v.code == ExitOK {
		// The answer did not reach stdout: that is not success.
		fmt.Fprintf(r.sio.Stderr, "kimi-run: writing output: %v\n", werr)
		return ExitError
	}
	return v.code
}
