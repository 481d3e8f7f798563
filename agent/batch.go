package agent

import (
	"context"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/kimi-run/kimi-run/event"
	"github.com/kimi-run/kimi-run/model"
	"github.com/kimi-run/kimi-run/session"
	"github.com/kimi-run/kimi-run/tools"
)

// running is one tool call of a batch.
type running struct {
	call model.CallSpec
	// sent is the call as it goes back into the conversation: arguments that were not a
	// JSON object are replaced by {} so the provider does not reject the next request.
	sent model.CallSpec
	// args are the parsed arguments, when argsOK; over says the call is past
	// MaxCallsPerReply; twin is an identical earlier call of the reply, which runs for both;
	// note is the repeat guard's reminder, added to the result.
	args   []byte
	argsOK bool
	over   bool
	twin   *running
	note   string

	done    chan struct{}
	output  string
	isError bool
	err     error
	kimi    *event.KimiToolText // the result in Kimi CLI's wording, when the tool gives it
	media   []event.Image       // images or videos the result brings (ReadMediaFile)
	denied  *event.ToolDenied   // the refusal, when something refused the call
}

// message is the call's result as the conversation holds it.
func (r *running) message() model.Message {
	out := r.output
	if r.err != nil {
		// The run stops on this error; the conversation still answers every call.
		out = "ERROR: the tool failed and the run stopped: " + r.err.Error()
	}
	m := model.Message{Role: model.RoleTool, Content: out, ToolCallID: r.call.ID, Name: r.call.Name}
	if r.err == nil {
		m.Images = r.media
	}
	return m
}

// newBatch prepares the calls of a complete reply, in order: a repeated id is dropped,
// arguments are checked, identical calls are paired, and the repeat guard sees each call.
func newBatch(a *Agent, step int, guard *repeatGuard, calls []model.CallSpec) *batch {
	b := &batch{agent: a, step: step}
	ids := make(map[string]bool, len(calls))
	byKey := map[string]*running{}
	for _, c := range calls {
		if ids[c.ID] {
			continue
		}
		ids[c.ID] = true
		r := &running{call: c, sent: c, done: make(chan struct{}), over: len(b.calls) >= MaxCallsPerReply}
		r.args, r.argsOK = model.ParseArgs(c.Arguments)
		if !r.argsOK {
			r.sent.Arguments = "{}"
		}
		if r.argsOK && !r.over {
			key := callKey(c.Name, r.args)
			if r.twin = byKey[key]; r.twin == nil {
				byKey[key] = r
			}
			if guard != nil {
				r.note = reminder(c.Name, guard.observe(key))
			}
		}
		b.calls = append(b.calls, r)
	}
	return b
}

// start emits tool_call and runs the call. Its result is saved and synced as soon as it
// is known, then reported in tool_result: a consumer that saw tool_result can count on the
// session to have it.
func (b *batch) start(ctx context.Context, r *running) {
	a, c := b.agent, r.call
	a.emit(event.ToolCall{Step: b.step, ID: c.ID, Name: c.Name, Arguments: c.ArgsJSON()})
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer close(r.done)
		began := time.Now()
		if r.twin != nil {
			// The same call twice in one reply runs once; both get its result.
			<-r.twin.done
			r.output, r.isError, r.err, r.kimi, r.media = r.twin.output, r.twin.isError, r.twin.err, r.twin.kimi, r.twin.media
			if d := r.twin.denied; d != nil {
				r.denied = &event.ToolDenied{ID: c.ID, Name: c.Name, Source: d.Source, Rule: d.Rule, Message: d.Message}
			}
		} else {
			meter := tools.NewOutputMeter(nil)
			stop := b.heartbeat(r, began, meter)
			b.runOne(tools.WithOutputMeter(ctx, meter), r)
			stop() // no tool_progress after the call's tool_result
		}
		if r.err != nil {
			return
		}
		if r.denied != nil {
			a.emit(*r.denied)
		}
		a.persist(func(s *session.File) error { return s.AppendSync(r.message()) })
		ev := event.ToolResult{Step: b.step, ID: c.ID, Name: c.Name, IsError: r.isError, Output: r.output, Kimi: r.kimi}
		if r.twin == nil {
			ev.DurationMS = time.Since(began).Milliseconds()
		}
		a.emit(ev)
	}()
}

// heartbeat reports r with a tool_progress event every Agent.Heartbeat while it runs, with
// the output its meter counted; stop ends the reports and returns once none can follow.
func (b *batch) heartbeat(r *running, began time.Time, meter *tools.OutputMeter) (stop func()) {
	a, every := b.agent, b.agent.Heartbeat
	if every <= 0 {
		return func() {}
	}
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			now := time.Now()
			bytes, last := meter.Read()
			if last.IsZero() {
				last = began
			}
			a.emit(event.ToolProgress{Step: b.step, ID: r.call.ID, Name: r.call.Name, ElapsedMS: now.Sub(began).Milliseconds(),
				OutputBytes: bytes, SinceOutputMS: max(0, now.Sub(last).Milliseconds())})
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}

// runOne runs a call that is not a twin and fills in its result.
func (b *batch) runOne(ctx context.Context, r *running) {
	var res tools.Result
	switch {
	case r.over:
		res = tools.Errorf("not run: a reply may make at most %d tool calls; make fewer calls per reply", MaxCallsPerReply)
	case !r.argsOK:
		res = tools.Errorf("not run: the arguments are not a JSON object. You sent: %s", clip(r.call.Arguments, 300))
	case !b.agent.ToolCap.take():
		res = tools.Errorf("%s", b.agent.ToolCap.refusal())
	default:
		res, r.err = b.run(ctx, r.call, r.args)
	}
	r.output = tools.Cap(res.Output)
	r.isError = res.IsError
	if d := res.Denied; d != nil {
		msg := d.Message
		if msg == "" {
			msg = r.output
		}
		r.denied = &event.ToolDenied{ID: r.call.ID, Name: r.call.Name, Source: d.Source, Rule: d.Rule, Message: msg}
	}
	if res.IsError {
		r.output = "ERROR: " + r.output
	}
	r.output += r.note
	if res.Kimi != nil {
		r.kimi = &event.KimiToolText{Message: res.Kimi.Message, Output: tools.Cap(res.Kimi.Output)}
	}
	for _, m := range res.Media {
		r.media = append(r.media, event.Image{MIME: m.MIME, Data: m.Data, Path: m.Path})
	}
}

// run calls the tool, turning an unknown name and a panic into results the model can read.
func (b *batch) run(ctx context.Context, c model.CallSpec, args []byte) (res tools.Result, err error) {
	t := b.agent.tool(c.Name)
	if t == nil {
		names := make([]string, 0, len(b.agent.Tools))
		for _, t := range b.agent.Tools {
			names = append(names, t.Name())
		}
		sort.Strings(names)
		return tools.Errorf("no tool named %q; the tools are: %s", clip(c.Name, 100), strings.Join(names, ", ")), nil
	}
	defer func() {
		if p := recover(); p != nil {
			res = tools.Errorf("the %s tool crashed: %v\n%s", c.Name, p, clip(string(debug.Stack()), 2000))
			err = nil
		}
	}()
	ctx = tools.WithCallID(ctx, c.ID)
	if b.agent.Parent != "" {
		ctx = tools.WithSubagent(ctx)
	}
	res, err = t.Run(ctx, args)
	if err != nil {
		err = fmt.Errorf("tool %s: %w", c.Name, err)
	}
	return res, err
}

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
