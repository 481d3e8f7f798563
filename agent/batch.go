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
	"github.com/kimi-run/kimi-run/tools"
)

// running is one tool call of a batch.
type running struct {
	call model.CallSpec
	// sent is the call as it goes back into the conversation: arguments that were not a
	// JSON object are replaced by {} so the provider does not reject the next request.
	sent    model.CallSpec
	done    chan struct{}
	output  string
	isError bool
	err     error
	kimi    *event.KimiToolText // the result in Kimi CLI's wording, when the tool gives it
}

// start launches a call unless it already runs. It emits tool_call before the call runs.
func (b *batch) start(ctx context.Context, c model.CallSpec) {
	b.mu.Lock()
	if b.ids == nil {
		b.ids = map[string]bool{}
	}
	if b.ids[c.ID] {
		b.mu.Unlock()
		return
	}
	b.ids[c.ID] = true
	r := &running{call: c, sent: c, done: make(chan struct{})}
	over := len(b.calls) >= MaxCallsPerReply
	b.calls = append(b.calls, r)
	args, argsOK := model.ParseArgs(c.Arguments)
	var twin *running
	note := ""
	if argsOK && !over {
		key := callKey(c.Name, args)
		if b.byKey == nil {
			b.byKey = map[string]*running{}
		}
		twin = b.byKey[key]
		if twin == nil {
			b.byKey[key] = r
		}
		if b.guard != nil {
			note = reminder(c.Name, b.guard.observe(key))
		}
	}
	b.mu.Unlock()

	a := b.agent
	if !argsOK {
		r.sent.Arguments = "{}"
	}
	a.emit(event.ToolCall{Step: b.step, ID: c.ID, Name: c.Name, Arguments: c.ArgsJSON()})
	if twin != nil {
		// The same call twice in one reply runs once; both get its result.
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			defer close(r.done)
			<-twin.done
			r.output, r.isError, r.err, r.kimi = twin.output, twin.isError, twin.err, twin.kimi
			if r.err == nil {
				a.emit(event.ToolResult{Step: b.step, ID: c.ID, Name: c.Name, IsError: r.isError, Output: r.output, Kimi: r.kimi})
			}
		}()
		return
	}

	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer close(r.done)
		began := time.Now()
		var res tools.Result
		switch {
		case over:
			res = tools.Errorf("not run: a reply may make at most %d tool calls; make fewer calls per reply", MaxCallsPerReply)
		case !argsOK:
			res = tools.Errorf("not run: the arguments are not a JSON object. You sent: %s", clip(c.Arguments, 300))
		default:
			res, r.err = b.run(ctx, c, args)
		}
		r.output = tools.Cap(res.Output)
		r.isError = res.IsError
		if res.IsError {
			r.output = "ERROR: " + r.output
		}
		r.output += note
		if res.Kimi != nil {
			r.kimi = &event.KimiToolText{Message: res.Kimi.Message, Output: tools.Cap(res.Kimi.Output)}
		}
		if r.err == nil {
			a.emit(event.ToolResult{Step: b.step, ID: c.ID, Name: c.Name, IsError: res.IsError,
				Output: r.output, DurationMS: time.Since(began).Milliseconds(), Kimi: r.kimi})
		}
	}()
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
	res, err = t.Run(tools.WithCallID(ctx, c.ID), args)
	if err != nil {
		err = fmt.Errorf("tool %s: %w", c.Name, err)
	}
	return res, err
}

// results waits for every call and returns them in the order the model made them (order).
// The first Go error from a tool stops the run.
func (b *batch) results(order []model.CallSpec) ([]*running, error) {
	b.wg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	byID := make(map[string]*running, len(b.calls))
	for _, r := range b.calls {
		if r.err != nil {
			return nil, r.err
		}
		byID[r.call.ID] = r
	}
	out := make([]*running, 0, len(b.calls))
	for _, c := range order {
		if r, ok := byID[c.ID]; ok {
			out = append(out, r)
			delete(byID, c.ID)
		}
	}
	for _, r := range b.calls {
		if _, left := byID[r.call.ID]; left {
			out = append(out, r)
		}
	}
	return out, nil
}

// clip shortens s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
