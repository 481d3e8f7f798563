package run

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/output"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/tools"
)

// outcome is what the run produced, whichever way it ran (one turn, Ralph or a flow).
type outcome struct {
	finalText  string
	stop       event.StopReason
	flow       bool // Ralph or a flow ran
	flowResult ralph.Result
}

// execute runs a parsed command line and returns the exit code.
func execute(cli *CLI, sio IO, version string) ExitCode {
	started := time.Now()
	jsonMode := cli.OutputFormat == "stream-json"
	// Scrub the keys from both streams: those in the environment now, the one actually
	// used (perhaps from the config file) once it is known, before anything else is written.
	stdout, stderr := newRedactWriter(sio.Stdout), newRedactWriter(sio.Stderr)
	for _, w := range []*redactWriter{stdout, stderr} {
		w.add(sio.Getenv("KIMI_API_KEY"))
		w.add(sio.Getenv("OPENAI_API_KEY"))
	}
	rawStderr := sio.Stderr
	sio.Stdout, sio.Stderr = stdout, stderr
	var sink output.Sink
	if jsonMode {
		sink = output.NewJSON(sio.Stdout)
	} else {
		sink = output.NewText(sio.Stdout, sio.Stderr, output.TextOptions{
			// warn and error keep only what went wrong, like --quiet.
			Quiet:   cli.Quiet || cli.LogLevel == "warn" || cli.LogLevel == "error",
			Color:   colorOK(rawStderr, sio.Getenv),
			Verbose: cli.LogLevel == "debug",
		})
	}
	r := &runState{sink: sink, sio: sio, jsonMode: jsonMode, started: started, answerFile: cli.OutputLastMessage, scrub: stdout.scrub}

	ctx, stop := withSignals(context.Background(), sio)
	defer stop()
	if cli.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, cli.Timeout, errTimeout)
		defer cancel()
	}

	tp, err := openTape(cli) // before resolve: a replay brings its endpoint and model
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	defer tp.close()
	ctx = tp.bind(ctx)
	sink = tp.track(sink)
	cfg, err := resolve(cli, sio.Getenv)
	r.secret = cfg.apiKey
	stdout.add(cfg.apiKey)
	stderr.add(cfg.apiKey)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	// Warnings found before init: the NDJSON stream must open with init, so there they wait
	// for it (and reach stderr at once, since one of them says what the run is waiting for).
	var early []string
	prompt, err := readPrompt(ctx, cli, sio.Stdin, func(msg string) {
		if jsonMode {
			fmt.Fprintf(sio.Stderr, "kimi-run: %s\n", msg)
			early = append(early, msg)
			return
		}
		r.emit(event.TypeWarning, event.Warning{Message: msg})
	})
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	plan, err := planRun(cli, cfg.workDir, prompt)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	sess, err := openSession(cli, cfg.workDir, sio.Getenv, cfg.apiKey)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	r.session = sess
	r.sessionID = sess.id
	if sess.session != nil {
		defer sess.session.Close()
	}

	env := tools.Env{
		WorkDir: cfg.workDir,
		Ripgrep: tools.LookRipgrep(),
		Todos: func(items []tools.Todo) {
			todo := event.Todo{Items: make([]event.TodoItem, len(items))}
			for i, it := range items {
				todo.Items[i] = event.TodoItem{Title: it.Title, Status: it.Status}
			}
			r.emit(event.TypeTodo, todo)
		},
	}
	retryPolicy := agent.RetryPolicy{
		Attempts:  cfg.maxRetries,
		BaseDelay: cli.RetryBaseDelay,
		MaxDelay:  cli.RetryMaxDelay,
	}
	if cli.RetryBaseDelay == 0 {
		retryPolicy.BaseDelay = -1 // no backoff at all
	}
	httpClient, err := tp.client(cfg, cli, version)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	tp.adjust(&retryPolicy, sio.Stderr, !jsonMode && !cli.Quiet && (cli.LogLevel == "info" || cli.LogLevel == "debug"))
	var names []string
	a := agent.New(agent.Config{
		Model: agent.NewOpenAI(agent.OpenAIConfig{
			BaseURL:       cfg.baseURL,
			APIKey:        cfg.apiKey,
			Model:         cfg.model,
			IdleTimeout:   cli.StreamIdleTimeout,
			ExtraBody:     extraBody(cfg.thinking),
			Headers:       headers(cfg.headers, version),
			SendReasoning: cfg.thinking != nil && *cfg.thinking,
			HTTPClient:    httpClient,
		}),
		Sink:     sink,
		MaxSteps: cfg.maxSteps,
		Compaction: agent.Compaction{MaxContext: cfg.maxContext, CapCompletion: cfg.contextKnown,
			Reserve: cfg.reserve, TriggerRatio: cfg.triggerRatio},
		Retry:   retryPolicy,
		Session: sess.session,
		DMail:   cli.DMail,
		Tools: func(d agent.Delegates) []tools.Tool {
			env.Subagent, env.DMail = d.Subagent, d.DMail
			ts := tools.Builtins(env)
			names = toolNames(ts)
			return ts
		},
		Subagents: subagentKinds,
		SystemPrompt: func(ts []tools.Tool) string {
			return agent.SystemPrompt(agent.PromptEnv{
				WorkDir: cfg.workDir, Now: time.Now(), OS: runtime.GOOS + "/" + runtime.GOARCH,
				Shell: shellName(), ToolNames: toolNames(ts),
			})
		},
	})
	r.emit(event.TypeInit, event.Init{
		SchemaVersion: event.SchemaVersion, SessionID: r.sessionID, Model: cfg.model,
		BaseURLHost: hostOf(cfg.baseURL), WorkDir: cfg.workDir, Tools: names, Version: version,
	})
	for _, msg := range early {
		r.emit(event.TypeWarning, event.Warning{Message: msg})
	}
	if sess.warning != "" {
		r.emit(event.TypeWarning, event.Warning{Message: sess.warning})
	}
	if sess.restored != nil {
		for _, w := range sess.restored.Warnings {
			r.emit(event.TypeWarning, event.Warning{Message: "session " + sess.id + ": " + w})
		}
		a.Restore(sess.restored)
	}

	var out outcome
	switch {
	case plan.flow != nil || plan.ralph != 0:
		runner := &ralph.Runner{Turner: a, Rewinder: a, Sink: sink}
		var res ralph.Result
		if plan.flow != nil {
			res, err = runner.Run(ctx, plan.flow, ralph.Options{MaxMoves: plan.moves, Fresh: cli.RalphFresh})
		} else {
			res, err = runner.Ralph(ctx, plan.prompt, ralph.RalphOptions{Extra: plan.ralph, Fresh: cli.RalphFresh})
		}
		out = outcome{finalText: stripChoice(res.FinalText), stop: res.StopReason, flow: true, flowResult: res}
	default:
		var t event.TurnOutcome
		t, err = a.Turn(ctx, event.TurnSpec{Prompt: plan.prompt})
		out = outcome{finalText: t.FinalText, stop: t.StopReason}
	}
	err = tp.finish(r, out, err)
	return r.finish(ctx, out, a.Stats(), err)
}

// subagentKinds gives subagents the parent's tools without Task and SendDMail, so
// delegation cannot nest and a subagent cannot rewind its parent.
func subagentKinds(parent []tools.Tool) map[string]agent.SubagentKind {
	sub := without(parent, "Task", "SendDMail")
	return map[string]agent.SubagentKind{
		"coder":   {Tools: sub},
		"explore": {Tools: pick(sub, "ReadFile", "Glob", "Grep", "FetchURL", "Think")},
	}
}

func toolNames(ts []tools.Tool) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return names
}

// without returns ts less the tools named.
func without(ts []tools.Tool, names ...string) []tools.Tool {
	var out []tools.Tool
	for _, t := range ts {
		keep := true
		for _, n := range names {
			if t.Name() == n {
				keep = false
			}
		}
		if keep {
			out = append(out, t)
		}
	}
	return out
}

// pick returns the tools named, in the order given.
func pick(ts []tools.Tool, names ...string) []tools.Tool {
	var out []tools.Tool
	for _, n := range names {
		for _, t := range ts {
			if t.Name() == n {
				out = append(out, t)
			}
		}
	}
	return out
}

// plan is what a run will do, decided before any model call so that a bad flow file or an
// unknown skill is a usage error.
type plan struct {
	prompt string
	flow   *ralph.Flow
	moves  int
	ralph  int
}

func planRun(cli *CLI, workDir, prompt string) (plan, error) {
	p := plan{prompt: prompt, ralph: cli.Ralph}
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
		p.flow, p.moves = f, cli.MaxMoves
		return p, nil
	}
	exp, err := ralph.ExpandPrompt(workDir, prompt)
	if err != nil {
		return p, usagef("%w", err)
	}
	if exp.Flow != nil {
		p.flow, p.moves, p.ralph = exp.Flow, exp.MaxMoves, 0
		return p, nil
	}
	p.prompt = exp.Prompt
	return p, nil
}

var choiceTag = regexp.MustCompile(`(?s)<choice>[^<]*</choice>`)

// stripChoice removes <choice> tags from a flow's final answer: they are for the runner,
// not for the file the answer is written to.
func stripChoice(s string) string {
	return strings.TrimSpace(choiceTag.ReplaceAllString(s, ""))
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
	// answerFile is --output-last-message; scrub cleans what is written there.
	answerFile string
	scrub      func(string) string
}

func (r *runState) emit(t event.Type, data any) {
	r.sink.Emit(event.Event{Type: t, Time: time.Now(), Data: data})
}

// finish emits the result event (always the last one) and returns the exit code.
func (r *runState) finish(ctx context.Context, out outcome, st agent.Stats, err error) ExitCode {
	v := judge(out, err, context.Cause(ctx))
	res := event.Result{
		Status:         "success",
		TerminalReason: v.reason,
		ExitCode:       int(v.code),
		FinalText:      out.finalText,
		Error:          v.err,
		Steps:          st.Steps,
		ToolCalls:      st.ToolCalls,
		Usage:          event.UsageTotals{InputTokens: st.Usage.InputTokens, OutputTokens: st.Usage.OutputTokens, CachedTokens: st.Usage.CachedTokens},
		DurationMS:     time.Since(r.started).Milliseconds(),
		SessionID:      r.sessionID,
	}
	if out.flow {
		res.Iterations = out.flowResult.Iterations
		res.LastChoice = out.flowResult.LastChoice
	}
	if r.answerFile != "" && v.code != ExitUsage {
		if err := writeAnswer(r.answerFile, out.finalText, r.scrub); err != nil && v.code == ExitOK {
			// The job asked for the answer in a file and it is not there: not a success.
			v = verdict{code: ExitError, reason: "error", err: &event.ErrorInfo{Kind: "output", Message: err.Error()}}
			res.TerminalReason, res.ExitCode, res.Error = v.reason, int(v.code), v.err
		} else if err != nil {
			r.emit(event.TypeWarning, event.Warning{Message: err.Error()})
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
	if v.code == ExitOK {
		if err := r.session.recordLast(); err != nil {
			r.emit(event.TypeWarning, event.Warning{Message: fmt.Sprintf("recording the last session: %v", err)})
		}
	}
	r.emit(event.TypeResult, res)
	if werr := r.sink.Err(); werr != nil && v.code == ExitOK {
		// The answer did not reach stdout: that is not success.
		fmt.Fprintf(r.sio.Stderr, "kimi-run: writing output: %v\n", werr)
		return ExitError
	}
	return v.code
}
