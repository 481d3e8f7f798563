package hooks

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kimi-run/kimi-run/tools"
)

// toolOutputCap bounds the tool_output and error fields of a post-tool hook's input.
const toolOutputCap = 2000

// Wrap returns ts with the tool hooks of e around every call: PreToolUse before it (which
// may block it), PostToolUse after any result, an error result included, and
// PostToolUseFailure after a crash (a Go error or a panic). Without tool hooks ts comes back unchanged.
func Wrap(e *Engine, ts []tools.Tool) []tools.Tool {
	if !e.Has(PreToolUse) && !e.Has(PostToolUse) && !e.Has(PostToolUseFailure) {
		return ts
	}
	out := make([]tools.Tool, len(ts))
	for i, t := range ts {
		out[i] = &hooked{Tool: t, e: e}
	}
	return out
}

// hooked is a tool whose calls pass through the hooks.
type hooked struct {
	tools.Tool
	e *Engine
}

// Run runs the PreToolUse hooks, then the tool, then the post-tool hooks. A block becomes
// an error result with the hook's reason, which the model reads; what allowing hooks print
// is appended to the result as a note.
func (h *hooked) Run(ctx context.Context, args json.RawMessage) (res tools.Result, err error) {
	name := h.Name()
	fields := func() map[string]any {
		return map[string]any{"tool_name": name, "tool_input": toolInput(args), "tool_call_id": tools.CallID(ctx)}
	}
	pre := h.e.Fire(ctx, PreToolUse, name, fields())
	if pre.Blocked {
		reason := pre.Reason
		if reason == "" {
			reason = "blocked by a PreToolUse hook"
		}
		return tools.Result{Output: reason, IsError: true}.Deny(tools.DeniedByHook, "PreToolUse hook: "+pre.By), nil
	}
	defer func() {
		if p := recover(); p != nil {
			f := fields()
			f["error"] = clip(fmt.Sprint(p), toolOutputCap)
			h.e.Fire(ctx, PostToolUseFailure, name, f)
			panic(p)
		}
	}()
	res, err = h.Tool.Run(ctx, args)
	if ctx.Err() != nil {
		return res, err // the run is ending: no hook would get to run
	}
	// As in Kimi CLI (soul/toolset.py), a call that returned a result fires PostToolUse,
	// an error result (a command that exits non-zero, a missing file) included: is_error
	// tells them apart. PostToolUseFailure is for a tool that crashed instead.
	f, postEv := fields(), PostToolUse
	if err != nil {
		f["error"], postEv = clip(err.Error(), toolOutputCap), PostToolUseFailure
	} else {
		f["tool_output"] = clip(res.Output, toolOutputCap)
		f["is_error"] = res.IsError
	}
	post := h.e.Fire(ctx, postEv, name, f)
	if err != nil {
		return res, err
	}
	res.Output += note(PreToolUse, pre.Context)
	res.Output += note(postEv, post.Context)
	if post.Blocked {
		reason := post.Reason
		if reason == "" {
			reason = "no reason given"
		}
		res.Output += fmt.Sprintf("\n\n<system>A hook objected after this call ran (its effects stay): %s</system>", reason)
	}
	return res, nil
}

// note is a hook's context as appended to a result; "" when there is none.
func note(ev, text string) string {
	if text == "" {
		return ""
	}
	return fmt.Sprintf("\n\n<system>From the user's %s hook:\n%s</system>", ev, text)
}

// toolInput is the call's arguments as an object for the hook's input; {} when they are
// not one.
func toolInput(args json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || m == nil {
		return json.RawMessage(`{}`)
	}
	return args
}
