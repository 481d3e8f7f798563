// Package hooks runs the user's hook commands: Kimi CLI's [[hooks]] of config.toml, the
// same protocol as Claude Code's. A hook is a shell command run at a moment of the agent's
// life (an event), optionally only when a regular expression matches the event's subject
// (a tool name, an error type, ...). It gets a JSON description of the moment on stdin.
//
// Exit 0 lets the action go on; what the command prints is extra context for the model
// where the event has somewhere to put it. Exit 2 blocks the action, and stderr says why;
// so does {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason":
// ...}} on stdout with exit 0. Any other exit, a command that cannot start and a timeout
// let the action go on with a warning: a broken hook never stops the run. Every hook runs
// in its own process group, which is killed at the hook's timeout, and also as soon as the
// command itself exits, so a hook never hangs the run nor leaves a process behind; every
// run of a hook is reported as a hook event.
package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/tools"
)

// The hook events. Notification fires when the model is told that a background task ended
// (run/, as Kimi CLI fires it when it hands a notification to the model).
const (
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	UserPromptSubmit   = "UserPromptSubmit"
	Stop               = "Stop"
	StopFailure        = "StopFailure"
	SessionStart       = "SessionStart"
	SessionEnd         = "SessionEnd"
	SubagentStart      = "SubagentStart"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	Notification       = "Notification"
)

// Events lists every event a hook may name.
var Events = []string{PreToolUse, PostToolUse, PostToolUseFailure, UserPromptSubmit, Stop,
	StopFailure, SessionStart, SessionEnd, SubagentStart, SubagentStop, PreCompact, PostCompact,
	Notification}

// DefaultTimeout is a hook's time limit when the config gives none; MaxTimeout is the most
// a config may give (Kimi CLI's bounds).
const (
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 600 * time.Second
)

// Hook is one [[hooks]] entry.
type Hook struct {
	Event   string
	Command string
	// Matcher is a regular expression (Go syntax) searched for in the event's subject;
	// empty matches everything.
	Matcher string
	// Timeout is the command's time limit; 0 means DefaultTimeout.
	Timeout time.Duration
}

type compiled struct {
	Hook
	re *regexp.Regexp
}

// Engine runs hooks. A nil *Engine has no hooks. Its methods are safe for concurrent use.
type Engine struct {
	// WorkDir is where commands run; it is the cwd of their input.
	WorkDir string
	// SessionID goes into every input.
	SessionID string
	// Scrub, when set, cleans a command's input of secrets (the API key in a tool's
	// output, say) before the command reads it.
	Scrub func([]byte) []byte
	// Sink receives a hook event for every command run, and warnings.
	Sink event.Sink
	// Launcher starts the commands as it starts Shell's: with the run's environment,
	// confined under the sandbox (a hook script in the work dir can be rewritten by a Shell
	// call, and must gain nothing by it), ended with the run. nil starts them from this
	// process with its environment.
	Launcher *launch.Launcher

	byEvent map[string][]compiled
}

// New checks hooks and returns an engine for them. An unknown event, an empty command, a
// matcher that is not a valid regular expression or a timeout outside 1 s..600 s is an
// error naming the hook: a guard that silently never ran would be worse than no run.
func New(hooks []Hook) (*Engine, error) {
	e := &Engine{byEvent: map[string][]compiled{}}
	for i, h := range hooks {
		where := fmt.Sprintf("hooks[%d] (event %q)", i, h.Event)
		if !known(h.Event) {
			return nil, fmt.Errorf("%s: unknown event; the events are %s", where, strings.Join(Events, ", "))
		}
		if strings.TrimSpace(h.Command) == "" {
			return nil, fmt.Errorf("%s: command is empty", where)
		}
		if h.Timeout == 0 {
			h.Timeout = DefaultTimeout
		}
		if h.Timeout < time.Second || h.Timeout > MaxTimeout {
			return nil, fmt.Errorf("%s: timeout must be 1 to 600 seconds", where)
		}
		re, err := regexp.Compile(h.Matcher)
		if err != nil {
			return nil, fmt.Errorf("%s: matcher %q is not a valid regular expression: %v", where, h.Matcher, err)
		}
		e.byEvent[h.Event] = append(e.byEvent[h.Event], compiled{Hook: h, re: re})
	}
	return e, nil
}

func known(ev string) bool {
	for _, k := range Events {
		if k == ev {
			return true
		}
	}
	return false
}

// Has reports whether any hook is configured for ev.
func (e *Engine) Has(ev string) bool {
	return e != nil && len(e.byEvent[ev]) > 0
}

// Around reports whether a hook runs before or after a call of tool: a PreToolUse,
// PostToolUse or PostToolUseFailure hook whose matcher matches it.
func (e *Engine) Around(tool string) bool {
	if e == nil {
		return false
	}
	for _, ev := range []string{PreToolUse, PostToolUse, PostToolUseFailure} {
		for _, h := range e.byEvent[ev] {
			if h.matches(tool) {
				return true
			}
		}
	}
	return false
}

// Outcome is what the hooks of one event decided.
type Outcome struct {
	// Blocked says a hook blocked the action; Reason is what the first such hook said, By
	// its command (on one line, at most 80 bytes, as the hook event shows it).
	Blocked bool
	Reason  string
	By      string
	// Context is what the allowing hooks printed for the model, in config order.
	Context string
}

// Fire runs the hooks of ev whose matcher matches target (or, for a tool, one of the
// names users may give it, such as Task for Agent), all at once, and waits for them.
// fields are added to the JSON input beside session_id, cwd and hook_event_name.
func (e *Engine) Fire(ctx context.Context, ev, target string, fields map[string]any) Outcome {
	var out Outcome
	if e == nil {
		return out
	}
	var matched []compiled
	seen := map[string]bool{}
	for _, h := range e.byEvent[ev] {
		if seen[h.Command] || !h.matches(target) {
			continue // the same command twice runs once, as in Kimi CLI
		}
		seen[h.Command] = true
		matched = append(matched, h)
	}
	if len(matched) == 0 {
		return out
	}
	input := map[string]any{"session_id": e.SessionID, "cwd": e.WorkDir, "hook_event_name": ev}
	for k, v := range fields {
		input[k] = v
	}
	stdin, err := json.Marshal(input)
	if err != nil {
		stdin = []byte(`{}`) // cannot happen with the fields we give
	}
	if e.Scrub != nil {
		stdin = e.Scrub(stdin)
	}
	stdin = append(stdin, '\n') // one line, so that a shell's `read` takes it whole
	results := make([]result, len(matched))
	var wg sync.WaitGroup
	for i, h := range matched {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = e.run(ctx, h.Hook, stdin)
		}()
	}
	wg.Wait()

	callID, _ := fields["tool_call_id"].(string)
	var notes []string
	for i, r := range results {
		h := matched[i]
		e.report(ctx, h.Hook, target, callID, r)
		switch {
		case r.blocked && !out.Blocked:
			out.Blocked, out.Reason, out.By = true, r.reason, summary(h.Command)
		case !r.blocked && r.context != "":
			notes = append(notes, r.context)
		}
	}
	out.Context = strings.Join(notes, "\n\n")
	return out
}

func (h compiled) matches(target string) bool {
	if h.Matcher == "" || h.re.MatchString(target) {
		return true
	}
	for _, alias := range tools.NameAliases(target) {
		if h.re.MatchString(alias) {
			return true
		}
	}
	return false
}

// report emits the hook event, and a warning when the hook failed and was passed over.
func (e *Engine) report(ctx context.Context, h Hook, target, callID string, r result) {
	if e.Sink == nil {
		return
	}
	now := time.Now()
	cmd := summary(h.Command)
	e.Sink.Emit(event.Event{Time: now, Data: event.Hook{
		Event: h.Event, Target: target, ToolCallID: callID, Command: cmd, ExitCode: r.exitCode,
		DurationMS: r.duration.Milliseconds(), Blocked: r.blocked, Reason: clip(r.reason, 500), TimedOut: r.timedOut,
	}})
	if ctx.Err() != nil {
		return // the run is ending; the hook was killed with it
	}
	var why string
	switch {
	case r.timedOut:
		why = fmt.Sprintf("timed out after %s and was killed", h.Timeout)
	case r.startErr != nil:
		why = "could not start: " + r.startErr.Error()
	case r.exitCode != 0 && r.exitCode != 2:
		why = fmt.Sprintf("exited %d", r.exitCode)
		if s := firstLine(r.stderr); s != "" {
			why += ": " + s
		}
	default:
		return
	}
	e.Sink.Emit(event.Event{Time: now, Data: event.Warning{
		Message: fmt.Sprintf("%s hook `%s` %s; going on as if it allowed", h.Event, cmd, why),
	}})
}

// result is how one command ended.
type result struct {
	exitCode       int
	duration       time.Duration
	timedOut       bool
	startErr       error
	stdout, stderr string
	blocked        bool
	reason         string
	context        string
}

// decide reads the command's exit code and output as the protocol says.
func (r *result) decide() {
	switch {
	case r.timedOut || r.startErr != nil:
	case r.exitCode == 2:
		r.blocked, r.reason = true, strings.TrimSpace(r.stderr)
	case r.exitCode == 0:
		out := strings.TrimSpace(r.stdout)
		if out == "" {
			return
		}
		var j struct {
			Specific struct {
				Decision          string `json:"permissionDecision"`
				Reason            string `json:"permissionDecisionReason"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if strings.HasPrefix(out, "{") && json.Unmarshal([]byte(out), &j) == nil {
			if j.Specific.Decision == "deny" {
				r.blocked, r.reason = true, strings.TrimSpace(j.Specific.Reason)
				return
			}
			r.context = strings.TrimSpace(j.Specific.AdditionalContext)
			return
		}
		r.context = out
	}
}

// outputCap bounds what is kept of a command's stdout and of its stderr.
const outputCap = 64 << 10

// run runs one hook command and decides what its result means.
func (e *Engine) run(ctx context.Context, h Hook, stdin []byte) result {
	r := execute(ctx, e.Launcher, h.Command, e.WorkDir, stdin, h.Timeout)
	r.decide()
	return r
}

// errTimeout marks a hook killed at its timeout.
var errTimeout = errors.New("hook timeout")

func summary(cmd string) string {
	return clip(strings.Join(strings.Fields(cmd), " "), 80)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return clip(s, 200)
}

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
