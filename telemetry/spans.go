package telemetry

import (
	"context"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/kimi-run/kimi-run/event"
)

// maxContent bounds one content attribute (an argument, an output), in bytes.
const maxContent = 16 << 10

// spanState is what the events opened and not yet closed.
type spanState struct {
	run    trace.Span
	runCtx context.Context
	start  time.Time
	model  string
	// provider is gen_ai.provider.name, from the run's provider type (providerName).
	provider string
	ended    bool
	// scopes holds, per agent, its open turn and model call: "" is the main agent, any
	// other key the id of the Agent tool call whose subagent it is.
	scopes map[string]*agentScope
	// tools are the tool calls in flight, by call id.
	tools map[string]*toolSpan
}

type agentScope struct {
	parent  context.Context // the run's span, or the Agent call's span of a subagent
	turn    trace.Span
	turnCtx context.Context
	step    *stepSpan
}

type stepSpan struct {
	span    trace.Span
	start   time.Time
	retries int
}

type toolSpan struct {
	span trace.Span
	ctx  context.Context
}

// content scrubs and bounds a text for a span.
func (t *Telemetry) content(s string) string {
	s = t.opts.Scrub(s)
	if len(s) > maxContent {
		cut := maxContent
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// Emit turns one event into spans and measurements: Telemetry is an event.Sink. The steps it
// calls run with t.mu held.
func (t *Telemetry) Emit(e event.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := &t.spans
	if st.ended {
		return
	}
	at := e.Time
	if at.IsZero() {
		at = time.Now()
	}
	switch d := e.Payload().(type) {
	case event.Init:
		t.initRun(d)
	case event.TurnBegin:
		t.beginTurn(e.Parent, d, at)
	case event.TurnEnd:
		sc := t.scope(e.Parent)
		if sc.turn != nil {
			sc.turn.SetAttributes(attribute.Int("kimi_run.steps", d.Steps), attribute.String("kimi_run.stop_reason", d.StopReason))
		}
		t.endTurn(sc, at, d.StopReason)
	case event.StepBegin:
		t.beginStep(e.Parent, d, at)
	case event.Retry:
		t.retry(e.Parent, d, at)
	case event.Usage:
		t.usage(e.Parent, d, at)
	case event.ToolCall:
		t.beginTool(e.Parent, d, at)
	case event.ToolDenied:
		if ts := st.tools[d.ID]; ts != nil {
			attrs := []attribute.KeyValue{attribute.String("kimi_run.rule", d.Rule)}
			ts.span.AddEvent("tool_denied", trace.WithTimestamp(at), trace.WithAttributes(attrs...))
		}
	case event.ToolResult:
		t.endTool(d, at)
	case event.Iteration:
		attrs := []attribute.KeyValue{attribute.Int("kimi_run.iteration", d.Iteration), attribute.String("kimi_run.node", d.Node)}
		if d.Choice != "" {
			attrs = append(attrs, attribute.String("kimi_run.choice", d.Choice))
		}
		t.scope(e.Parent).span().AddEvent("iteration", trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	case event.CompactionBegin:
		t.scope(e.Parent).span().AddEvent("compaction", trace.WithTimestamp(at),
			trace.WithAttributes(attribute.Int("kimi_run.tokens_before", d.TokensBefore)))
	case event.Result:
		if e.Parent != "" {
			break
		}
		t.finishRun(d, at)
	}
}

// beginTurn ends the agent's open turn, if any, and opens the next one.
func (t *Telemetry) beginTurn(parent string, d event.TurnBegin, at time.Time) {
	sc := t.scope(parent)
	t.endTurn(sc, at, "")
	attrs := []attribute.KeyValue{attribute.Int("kimi_run.turn", d.Turn)}
	if d.Iteration > 0 {
		attrs = append(attrs, attribute.Int("kimi_run.iteration", d.Iteration))
	}
	if d.Node != "" && (parent == "" || t.opts.Content) {
		// A flow's node id; a subagent's "node" is its task's description: content.
		attrs = append(attrs, attribute.String("kimi_run.node", t.content(d.Node)))
	}
	if parent != "" {
		attrs = append(attrs, attribute.String("kimi_run.parent_tool_call_id", parent))
	}
	sc.turnCtx, sc.turn = t.tracer.Start(sc.parent, "turn", trace.WithTimestamp(at), trace.WithAttributes(attrs...))
}

// beginStep opens the span of one model call (a step), ending a previous one that never
// reported usage.
func (t *Telemetry) beginStep(parent string, d event.StepBegin, at time.Time) {
	st := &t.spans
	sc := t.scope(parent)
	t.endStep(sc, at, "no usage reported")
	_, span := t.tracer.Start(sc.ctx(), "chat "+st.model, trace.WithTimestamp(at), trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("gen_ai.provider.name", st.provider),
			attribute.String("gen_ai.request.model", st.model),
			attribute.Int("kimi_run.step", d.Step),
		))
	sc.step = &stepSpan{span: span, start: at}
}

// retry counts a retried model call and marks it on the step's span.
func (t *Telemetry) retry(parent string, d event.Retry, at time.Time) {
	sc := t.scope(parent)
	if sc.step == nil {
		return
	}
	sc.step.retries++
	attrs := []attribute.KeyValue{
		attribute.Int("kimi_run.attempt", d.Attempt), attribute.Int("kimi_run.max_attempts", d.MaxAttempts),
		attribute.Int64("kimi_run.delay_ms", d.DelayMS),
	}
	if d.HTTPStatus != 0 {
		attrs = append(attrs, attribute.Int("http.response.status_code", d.HTTPStatus))
	}
	sc.step.span.AddEvent("retry", trace.WithTimestamp(at), trace.WithAttributes(attrs...))
}

// usage counts a step's tokens and ends its span with them.
func (t *Telemetry) usage(parent string, d event.Usage, at time.Time) {
	sc := t.scope(parent)
	t.inst.tokens.Add(context.Background(), int64(d.InputTokens), t.tokenAttrs("input"))
	t.inst.tokens.Add(context.Background(), int64(d.OutputTokens), t.tokenAttrs("output"))
	t.inst.tokens.Add(context.Background(), int64(d.CachedTokens), t.tokenAttrs("cached"))
	if sc.step == nil {
		return
	}
	sc.step.span.SetAttributes(
		attribute.Int("gen_ai.usage.input_tokens", d.InputTokens),
		attribute.Int("gen_ai.usage.output_tokens", d.OutputTokens),
		attribute.Int("gen_ai.usage.cache_read.input_tokens", d.CachedTokens),
		attribute.Int("gen_ai.usage.cache_creation.input_tokens", d.CacheWriteTokens),
	)
	t.endStep(sc, at, "")
}

// beginTool opens the span of a tool call under the step that asked for it.
func (t *Telemetry) beginTool(parent string, d event.ToolCall, at time.Time) {
	sc := t.scope(parent)
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", d.Name),
		attribute.String("gen_ai.tool.call.id", d.ID),
	}
	if t.opts.Content {
		attrs = append(attrs, attribute.String("gen_ai.tool.call.arguments", t.content(string(d.Arguments))))
	}
	ctx, span := t.tracer.Start(sc.ctx(), "execute_tool "+d.Name, trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	t.spans.tools[d.ID] = &toolSpan{span: span, ctx: ctx}
}

// endTool ends a tool call's span with its outcome (and its subagent's scope, for an Agent
// call) and measures its duration.
func (t *Telemetry) endTool(d event.ToolResult, at time.Time) {
	st := &t.spans
	ts := st.tools[d.ID]
	if ts == nil {
		return
	}
	delete(st.tools, d.ID)
	delete(st.scopes, d.ID) // its subagent, if it was an Agent call, is done
	ts.span.SetAttributes(attribute.Bool("kimi_run.tool.is_error", d.IsError), attribute.Int("kimi_run.tool.output_bytes", len(d.Output)))
	if t.opts.Content {
		ts.span.SetAttributes(attribute.String("gen_ai.tool.call.result", t.content(d.Output)))
	}
	if d.IsError {
		ts.span.SetAttributes(attribute.String("error.type", "tool_error"))
		ts.span.SetStatus(codes.Error, "the tool call failed")
	}
	ts.span.End(trace.WithTimestamp(at))
	dur := time.Duration(d.DurationMS) * time.Millisecond
	t.inst.toolCall.Record(context.Background(), dur.Seconds(), metric.WithAttributes(
		attribute.String("gen_ai.tool.name", d.Name), attribute.Bool("error", d.IsError)))
}

func (t *Telemetry) tokenAttrs(kind string) metric.AddOption {
	return metric.WithAttributes(attribute.String("gen_ai.token.type", kind), attribute.String("gen_ai.request.model", t.spans.model))
}

// scope returns the agent scope of events with this parent, opening it on first use.
func (t *Telemetry) scope(parent string) *agentScope {
	st := &t.spans
	if sc := st.scopes[parent]; sc != nil {
		return sc
	}
	sc := &agentScope{parent: st.runCtx}
	if parent != "" {
		if ts := st.tools[parent]; ts != nil {
			sc.parent = ts.ctx
		}
	}
	st.scopes[parent] = sc
	return sc
}

// ctx is where a model or tool call of the scope starts: its turn, else its parent.
func (sc *agentScope) ctx() context.Context {
	if sc.turnCtx != nil {
		return sc.turnCtx
	}
	return sc.parent
}

// span is the scope's innermost open span, for span events.
func (sc *agentScope) span() trace.Span { return trace.SpanFromContext(sc.ctx()) }

// endStep ends the scope's open model call; failed says why it did not finish ("" when it
// reported its usage).
func (t *Telemetry) endStep(sc *agentScope, at time.Time, failed string) {
	s := sc.step
	if s == nil {
		return
	}
	sc.step = nil
	s.span.SetAttributes(attribute.Int("kimi_run.retries", s.retries))
	outcome := "ok"
	if failed != "" {
		outcome = "error"
		s.span.SetAttributes(attribute.String("error.type", "model_call"))
		s.span.SetStatus(codes.Error, failed)
	}
	s.span.End(trace.WithTimestamp(at))
	t.inst.modelCall.Record(context.Background(), at.Sub(s.start).Seconds(), metric.WithAttributes(
		attribute.String("gen_ai.request.model", t.spans.model), attribute.String("outcome", outcome)))
}

// endTurn ends the scope's open turn (and its model call); stop is the turn's stop reason.
func (t *Telemetry) endTurn(sc *agentScope, at time.Time, stop string) {
	t.endStep(sc, at, "the turn ended without the call's usage")
	if sc.turn == nil {
		return
	}
	if stop == "error" {
		sc.turn.SetStatus(codes.Error, "the turn failed")
	}
	sc.turn.End(trace.WithTimestamp(at))
	sc.turn, sc.turnCtx = nil, nil
}
