package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/internal/launch"
	"github.com/kimi-run/kimi-run/tools"
)

const (
	// Timeout bounds one call, as Kimi CLI bounds it (120 s): past it the tool's process
	// group is stopped.
	Timeout = 120 * time.Second
	// grace is how long a stopped tool gets to exit after SIGTERM before SIGKILL.
	grace = 2 * time.Second
	// maxStdout and maxStderr bound what is kept of a call's output; the rest is read and
	// counted, so a chatty tool never blocks on a full pipe and never grows the run.
	maxStdout = 1 << 20
	maxStderr = 64 << 10
)

// facts: a command of the plugin's, which may do anything a Shell command may; the launcher
// confines it under the sandbox.
var facts = tools.Facts{ReadsFiles: true, WritesFiles: true, Network: true, Destructive: true, Where: tools.InCommand}

// Tool is one plugin tool. It implements tools.Tool.
type Tool struct {
	spec    ToolSpec
	plugin  string // the plugin's name
	dir     string
	schema  json.RawMessage
	env     []string // set on top of the run's environment (inject's base_url)
	launch  *launch.Launcher
	timeout time.Duration
}

// Host is what the run tells plugins about itself through inject: the base URL of the
// model's endpoint. Its key is never given (see Tools).
type Host struct {
	BaseURL string
}

// Tools are the tools of specs, started through l, in order. A tool named like one in taken
// (the built-ins), or like an earlier plugin tool, is left out with a warning, as Kimi CLI
// skips a plugin tool that conflicts with an existing one. A plugin's inject gets
// "base_url" as Kimi CLI gives it, in its tools' environment under the inject key; an
// "api_key" is not given (no command gets the run's credentials), and a warning says so.
// kimi-run never writes into a plugin's config file.
func Tools(specs []Spec, l *launch.Launcher, host Host, taken []string) ([]tools.Tool, []string) {
	var out []tools.Tool
	var warnings []string
	names := slices.Clone(taken)
	for _, s := range specs {
		var env, withheld []string
		keys := make([]string, 0, len(s.Inject))
		for k := range s.Inject {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			switch s.Inject[k] {
			case "base_url":
				env = append(env, k+"="+host.BaseURL)
			default:
				withheld = append(withheld, k)
			}
		}
		if len(withheld) > 0 {
			warnings = append(warnings, fmt.Sprintf("plugin %s asks for the run's credentials (inject: %s); kimi-run gives no command its key, nor writes it into %s: its tools run without it",
				s.Name, strings.Join(withheld, ", "), s.ConfigFile))
		}
		for _, ts := range s.Tools {
			if slices.Contains(names, ts.Name) {
				warnings = append(warnings, fmt.Sprintf("plugin %s: tool %s is left out: another tool has that name", s.Name, ts.Name))
				continue
			}
			names = append(names, ts.Name)
			schema := ts.Parameters
			if p := strings.TrimSpace(string(schema)); p == "" || p == "null" {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			out = append(out, &Tool{spec: ts, plugin: s.Name, dir: s.Dir, schema: schema, env: env, launch: l, timeout: Timeout})
		}
	}
	return out, warnings
}

// Name is the tool's name in plugin.json.
func (t *Tool) Name() string { return t.spec.Name }

// Description is the tool's description in plugin.json.
func (t *Tool) Description() string { return t.spec.Description }

// Schema is the tool's parameters, or an object without properties.
func (t *Tool) Schema() json.RawMessage { return t.schema }

// Facts are a command's: it may do anything.
func (t *Tool) Facts() tools.Facts { return facts }

// Plugin is the name of the plugin the tool comes from.
func (t *Tool) Plugin() string { return t.plugin }

// Run runs the tool's command in the plugin's directory with the arguments as JSON on its
// stdin, and returns its stdout. A command that exits non-zero, cannot start or outlasts
// Timeout is an error result the model reads.
func (t *Tool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	if ctx.Err() != nil {
		return tools.Errorf("not run: the run is stopping"), nil
	}
	stdout, stderr := &launch.Head{Max: maxStdout}, &launch.Head{Max: maxStderr}
	outs, err := launch.NewCapture(stdout, stderr)
	if err != nil {
		return tools.Errorf("plugin tool %s: %v", t.Name(), err), nil
	}
	// A tool that never reads its stdin makes the feed's write fail once it exits: no matter.
	in, err := launch.Feed(compactArgs(args))
	if err != nil {
		outs.Abandon()
		return tools.Errorf("plugin tool %s: %v", t.Name(), err), nil
	}
	cmd := t.spec.Command
	p, err := t.launch.Start(launch.Spec{Path: cmd[0], Args: cmd, Env: t.env, Dir: t.dir, Stdin: in, Stdout: outs.Stdout(), Stderr: outs.Stderr(), Confine: true})
	in.Close()
	outs.Started()
	if err != nil {
		outs.Abandon()
		return tools.Errorf("plugin tool %s could not start %s: %v", t.Name(), cmd[0], err).
			WithKimi(fmt.Sprintf("Plugin tool '%s' failed: %v", t.Name(), err), ""), nil
	}
	timedOut := t.await(ctx, p)
	state := p.Wait()
	// The output ends when the last process holding the pipes lets go: what the command
	// left behind gets the grace, then loses its pipes.
	outs.Wait(grace)
	// A tool is one call: what it left running in its group is stopped with it (the run
	// would end it later anyway).
	launch.Stop(grace, time.Second, p)
	return t.result(ctx, timedOut, state, strings.TrimSpace(validUTF8(stdout.String())), stdout.Dropped(), validUTF8(stderr.String())), nil
}

// compactArgs is the call's arguments as one line of JSON for the tool's stdin: {} when
// there are none or they are not JSON.
func compactArgs(args json.RawMessage) []byte {
	var compact bytes.Buffer
	if len(args) == 0 || json.Compact(&compact, args) != nil {
		compact.Reset()
		compact.WriteString("{}")
	}
	return compact.Bytes()
}

// await waits for the call to end, and stops it (SIGTERM, grace, SIGKILL) when it outlasts
// the timeout, which it reports, or when the run stops.
func (t *Tool) await(ctx context.Context, p *launch.Proc) (timedOut bool) {
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	stopped := false
	select {
	case <-p.Done():
	case <-timer.C:
		stopped, timedOut = true, true
	case <-ctx.Done():
		stopped = true
	}
	if stopped {
		_ = p.Signal(false)
		launch.WaitGone(time.Now().Add(grace), p)
		_ = p.Signal(true)
	}
	return timedOut
}

// result is what the model reads of an ended call: its stdout (out, with dropped bytes
// counted), or why it failed.
func (t *Tool) result(ctx context.Context, timedOut bool, state launch.State, out string, dropped int64, stderr string) tools.Result {
	switch {
	case ctx.Err() != nil && !timedOut:
		return tools.Errorf("plugin tool %s was stopped: the run is stopping", t.Name())
	case timedOut:
		return tools.Errorf("plugin tool %s did not finish within %s and was stopped%s", t.Name(), t.timeout, tail(out, stderr)).
			WithKimi(fmt.Sprintf("Plugin tool '%s' timed out after %ds.", t.Name(), int(t.timeout.Seconds())), "")
	case !state.Success():
		msg := strings.TrimSpace(stderr)
		if msg == "" {
			msg = out
		}
		kimiMsg := msg
		if kimiMsg == "" {
			kimiMsg = fmt.Sprintf("Exit code %d", state.ExitCode())
		}
		res := tools.Errorf("plugin tool %s failed (%s)", t.Name(), state)
		if msg != "" {
			res.Output += ":\n" + msg
		}
		return res.WithKimi(fmt.Sprintf("Plugin tool '%s' failed: %s", t.Name(), kimiMsg), "")
	}
	text := out
	if dropped > 0 {
		text += fmt.Sprintf("\n\n(%d more bytes of output were dropped.)", dropped)
	}
	if text == "" {
		text = "(no output)"
	}
	return tools.Text(text).WithKimi("", out)
}

// tail is what a stopped tool wrote, for its error.
func tail(stdout, stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		s = stdout
	}
	if s == "" {
		return ""
	}
	return "; its output so far:\n" + s
}

// validUTF8 replaces what is not UTF-8 in a tool's output (a cut mid-rune at the cap, a
// binary tool) so that the model gets text.
func validUTF8(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
