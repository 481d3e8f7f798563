package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kimi-run/kimi-run/agent"
	"github.com/kimi-run/kimi-run/config"
	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/headroom"
	"github.com/kimi-run/kimi-run/kimilogin"
	"github.com/kimi-run/kimi-run/ralph"
	"github.com/kimi-run/kimi-run/sandbox/runplan"
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

// execute runs a parsed command line and returns the exit code. It is the composition
// root: resolve the settings, start (output, signals), open (prompt, workspace, session),
// build (MCP, model, agent), begin (init), work, finish. Every phase that fails ends the
// run with the result event; what the phases opened is closed once, at the end.
func execute(f *config.Flags, sio IO, version string) ExitCode {
	started := time.Now()
	// The run's clock starts before any file is read: a config file that never ends is
	// held to --timeout and the signals too.
	stop, sio := newStopper(f, sio)
	defer stop.close()
	ctx := stop.arm(sio.Signals, f.Timeout)
	s, resolveErr := config.Resolve(ctx, *f, sio.env())
	r, ctx := start(ctx, s, sio, stop, version, started)
	defer r.res.close()
	in, err := r.open(ctx, resolveErr)
	if err != nil {
		return r.finish(ctx, outcome{}, agent.Stats{}, err)
	}
	b, err := r.build(ctx, in)
	if err != nil {
		// The run never started: an empty new session would only be noise.
		r.session.DropIfNew()
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
	if err := headroom.Check(); err != nil {
		return nil, err
	}
	// An answer file in the folder of the session this run names is checked once the
	// session has made that folder; any other is checked now, before the run pays for its
	// answer.
	inSession := answerInSession(r.answerFile, s)
	if r.answerFile != "" && !inSession {
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
	r.predial(ctx)
	if err := r.prepareWorkspace(ctx, in); err != nil {
		return nil, err
	}
	if err := r.openSession(ctx, in.prompt); err != nil {
		return in, err
	}
	if inSession {
		if err := checkAnswerFile(r.answerFile); err != nil {
			r.answerFile = ""
			return in, err
		}
	}
	return in, nil
}

// login puts a stored Kimi login's token in place of the key, so that it is scrubbed like
// one. A missing login is a usage error; one that has expired is reported once the
// stream has opened.
func (r *runState) login(ctx context.Context) error {
	var err error
	if l := r.s.Endpoint.Login; l != nil {
		// Every token the login reads or obtains is a secret from then on, the refresh
		// token too: a command may print the token file.
		l.Seen = func(t kimilogin.Token) { r.secrets.Add(t.AccessToken, t.RefreshToken) }
	}
	r.cred, err = useLogin(ctx, r.s.Endpoint, func(msg string) { fmt.Fprintf(r.sio.Stderr, "kimi-run: warning: %s\n", msg) })
	r.secrets.Add(r.cred.apiKey)
	var ue *usageError
	if errors.As(err, &ue) {
		return err
	}
	r.loginErr = err
	return nil
}

// prepareWorkspace checks the extra directories, the tool rules and the sandbox, renders
// the agent's prompts, plans the run and checks that the prompt fits the model.
func (r *runState) prepareWorkspace(ctx context.Context, in *inputs) error {
	s, f, warn := r.s, &r.s.Flags, r.warnEarly
	if err := runplan.CreateAddDirs(s.WorkDir, f.AddDir, warn); err != nil {
		return usagef("%w", err)
	}
	g, err := newGuard(s)
	if err != nil {
		return err
	}
	r.res.add(g.sandbox.Close)
	r.guard = g
	for _, note := range g.sandbox.Notes() {
		warn(note)
	}
	g.sandbox.OnRefusal(r.warn)
	if in.ws, err = setupWorkspace(s, g.sandbox.AddDirs(), g.sandbox.PromptNote(), warn); err != nil {
		return err
	}
	if in.ws.agent.prompt, err = f.ApplySystemPrompt(ctx, in.ws.agent.prompt); err != nil {
		return err
	}
	if in.plan, err = planRun(ctx, s, in.ws.skills, in.prompt); err != nil {
		return err
	}
	if in.plan.Images, err = s.LoadImages(ctx); err != nil {
		return err
	}
	// Commands, hooks, MCP servers and rg get the environment without kimi-run's
	// credentials, and start confined when the sandbox is on (launch).
	in.childEnv = childEnviron(s.Env.Environ(), r.secrets, f.PassEnv)
	r.launch.Environ = in.childEnv
	g.sandbox.Configure(r.launch)
	r.launch.Warn = r.warn
	if len(s.MCP.Servers) == 0 {
		// Every tool is a built-in: a rule that names none of them is refused now, before
		// a session directory is made for a run that cannot start.
		if err := g.check(toolNames(tools.Builtins(tools.Env{WorkDir: s.WorkDir})), nil); err != nil {
			return err
		}
	}
	msg, err := s.Endpoint.CheckPromptSize(len(in.plan.Prompt)+len(in.plan.Request), in.ws.agent.prompt)
	if err != nil {
		return err
	}
	if msg != "" {
		warn(msg)
	}
	return nil
}

// begin opens the event stream with init, then the warnings that waited for it, and
// restores a resumed session's conversation.
func (r *runState) begin(b *built) error {
	s, sess := r.s, r.session
	if r.sio.SignalsCaught != nil {
		<-r.sio.SignalsCaught // main catches them beside the set-up
	}
	r.emit(event.Init{
		SchemaVersion: event.SchemaVersion, SessionID: r.sessionID, Model: s.Endpoint.Model, Provider: providerType(s.Endpoint),
		BaseURLHost: hostOf(s.Endpoint.BaseURL), WorkDir: s.WorkDir, Tools: b.names, Version: r.version,
		MCPServers: b.servers.initInfo(), ForkedFrom: sess.ForkedFrom,
	})
	if sess.Rewound != nil {
		r.emit(rewindEvent(sess.Rewound))
	}
	for _, msg := range append(r.early, b.servers.warnings()...) {
		r.warn(msg)
	}
	if w := runplan.RootWarning(s.Flags.Sandbox, s.Env.Getenv); w != "" {
		r.warn(w)
	}
	if sess.Warning != "" {
		r.warn(sess.Warning)
	}
	if r.loginErr != nil {
		return r.loginErr
	}
	if sess.Restored != nil {
		if w := s.Flags.SystemPromptKept(sess.ID); w != "" {
			r.warn(w)
		}
		b.agent.Restore(sess.Restored)
		// What an earlier run's background tasks became: a resumed run never starts one
		// again (its Shell call has its result, or is answered as interrupted).
		r.tasks.Restore()
	}
	for _, w := range sess.Repairs {
		r.warn(w)
	}
	return nil
}

// work runs the prompt (its turn, Ralph loop or flow) or the conversation on stdin,
// between the session's hooks, and settles the tape.
func (r *runState) work(ctx context.Context, in *inputs, b *built) (outcome, error) {
	rh := &runHooks{e: b.hooks, scrub: r.secrets.String}
	r.hooks = rh
	source := "startup"
	if r.session.Restored != nil {
		source = "resume"
	}
	rh.sessionStart(ctx, source)
	var out outcome
	var err error
	answer := func(p plan, after func(context.Context, ralph.Turner, outcome, error) (outcome, error)) (outcome, error) {
		return rh.around(ctx, p.Prompt, b.agent, func(t ralph.Turner) (outcome, error) {
			return runPlan(ctx, p, t, b.agent, r.sink, r.warn, after)
		})
	}
	if in.conv != nil {
		planFor := func(ctx context.Context, text string) (plan, error) { return planRun(ctx, r.s, in.ws.skills, text) }
		out, err = in.conv.run(ctx, r.sink, in.plan, planFor, func(p plan) (outcome, error) { return answer(p, nil) })
	} else {
		out, err = answer(in.plan, r.waitForTasks)
	}
	return out, r.tape.finish(r, out, err)
}

// providerType is the endpoint's provider type; an endpoint from the environment alone is
// kimi (KIMI_*) or openai_legacy (OPENAI_*), as Kimi CLI would name it.
func providerType(e config.Endpoint) string {
	switch {
	case e.Protocol != "":
		return e.Protocol
	case e.KimiProvider:
		return "kimi"
	}
	return "openai_legacy"
}
