package telemetry

import (
	"context"
	"net"
	"strconv"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

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
	span  trace.Span
	ctx   context.Context
	name  string
	start time.Time
}

func (t *Telemetry) startRun(ctx context.Context) {
	tracer := t.tracer
	if tracer == nil {
		tracer = noop.NewTracerProvider().Tracer(scope)
	}
	t.tracer = tracer
	now := time.Now()
	ctx, span := tracer.Start(ctx, "invoke_agent kimi-run", trace.WithTimestamp(now), trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent"), attribute.String("gen_ai.agent.name", "kimi-run")))
	t.spans = spanState{run: span, runCtx: ctx, start: now, scopes: map[string]*agentScope{}, tools: map[string]*toolSpan{}}
}

// SetPrompt records the run's prompt on its span when Options.Content allows it.
func (t *Telemetry) SetPrompt(prompt string) {
	if !t.opts.Content {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.spans.run.SetAttributes(attribute.String("kimi_run.prompt", t.content(prompt)))
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

// Emit turns one event into spans and measurements: Telemetry is an event.Sink.
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
		st.model, st.provider = d.Model, providerName(d.Provider)
		st.run.SetAttributes(
			attribute.String("gen_ai.request.model", d.Model),
			attribute.String("gen_ai.provider.name", st.provider),
			attribute.String("session.id", d.SessionID),
			attribute.Int("kimi_run.tools", len(d.Tools)),
		)
		st.run.SetAttributes(serverAttrs(d.BaseURLHost)...)
	case event.TurnBegin:
		sc := t.scope(e.Parent)
		t.endTurn(sc, at, "")
		attrs := []attribute.KeyValue{attribute.Int("kimi_run.turn", d.Turn)}
		if d.Iteration > 0 {
			attrs = append(attrs, attribute.Int("kimi_run.iteration", d.Iteration))
		}
		if d.Node != "" && (e.Parent == "" || t.opts.Content) {
			// A flow's node id; a subagent's "node" is its task's description: content.
			attrs = append(attrs, attribute.String("kimi_run.node", t.content(d.Node)))
		}
		if e.Parent != "" {
			attrs = append(attrs, attribute.String("kimi_run.parent_tool_call_id", e.Parent))
		}
		sc.turnCtx, sc.turn = t.tracer.Start(sc.parent, "turn", trace.WithTimestamp(at), trace.WithAttributes(attrs...))
	case event.TurnEnd:
		sc := t.scope(e.Parent)
		if sc.turn != nil {
			sc.turn.SetAttributes(attribute.Int("kimi_run.steps", d.Steps), attribute.String("kimi_run.stop_reason", d.StopReason))
		}
		t.endTurn(sc, at, d.StopReason)
	case event.StepBegin:
		sc := t.scope(e.Parent)
		t.endStep(sc, at, "no usage reported")
		_, span := t.tracer.Start(sc.ctx(), "chat "+st.model, trace.WithTimestamp(at), trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(
				attribute.String("gen_ai.operation.name", "chat"),
				attribute.String("gen_ai.provider.name", st.provider),
				attribute.String("gen_ai.request.model", st.model),
				attribute.Int("kimi_run.step", d.Step),
			))
		sc.step = &stepSpan{span: span, start: at}
	case event.Retry:
		sc := t.scope(e.Parent)
		if sc.step != nil {
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
	case event.Usage:
		sc := t.scope(e.Parent)
		t.inst.tokens.Add(context.Background(), int64(d.InputTokens), t.tokenAttrs("input"))
		t.inst.tokens.Add(context.Background(), int64(d.OutputTokens), t.tokenAttrs("output"))
		t.inst.tokens.Add(context.Background(), int64(d.CachedTokens), t.tokenAttrs("cached"))
		if sc.step != nil {
			sc.step.span.SetAttributes(
				attribute.Int("gen_ai.usage.input_tokens", d.InputTokens),
				attribute.Int("gen_ai.usage.output_tokens", d.OutputTokens),
				attribute.Int("gen_ai.usage.cache_read.input_tokens", d.CachedTokens),
				attribute.Int("gen_ai.usage.cache_creation.input_tokens", d.CacheWriteTokens),
			)
			t.endStep(sc, at, "")
		}
	case event.ToolCall:
		sc := t.scope(e.Parent)
		attrs := []attribute.KeyValue{
			attribute.String("gen_ai.operation.name", "execute_tool"),
			attribute.String("gen_ai.tool.name", d.Name),
			attribute.String("gen_ai.tool.call.id", d.ID),
		}
		if t.opts.Content {
			attrs = append(attrs, attribute.String("gen_ai.tool.call.arguments", t.content(string(d.Arguments))))
		}
		ctx, span := t.tracer.Start(sc.ctx(), "execute_tool "+d.Name, trace.WithTimestamp(at), trace.WithAttributes(attrs...))
		st.tools[d.ID] = &toolSpan{span: span, ctx: ctx, name: d.Name, start: at}
	case event.ToolDenied:
		if ts := st.tools[d.ID]; ts != nil {
			attrs := []attribute.KeyValue{attribute.String("kimi_run.rule", d.Rule)}
			ts.span.AddEvent("tool_denied", trace.WithTimestamp(at), trace.WithAttributes(attrs...))
		}
	case event.ToolResult:
		ts := st.tools[d.ID]
		if ts == nil {
			break
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

// finishRun closes every span with the run's outcome and counts the run.
func (t *Telemetry) finishRun(r event.Result, at time.Time) {
	st := &t.spans
	t.endAll(at, "the run ended first")
	attrs := []attribute.KeyValue{
		attribute.Int("kimi_run.exit_code", r.ExitCode),
		attribute.String("kimi_run.terminal_reason", r.TerminalReason),
		attribute.Int("kimi_run.steps", r.Steps),
		attribute.Int("kimi_run.tool_calls", r.ToolCalls),
		attribute.Int("kimi_run.iterations", r.Iterations),
		attribute.Int("gen_ai.usage.input_tokens", r.Usage.InputTokens),
		attribute.Int("gen_ai.usage.output_tokens", r.Usage.OutputTokens),
		attribute.Int("gen_ai.usage.cache_read.input_tokens", r.Usage.CachedTokens),
		attribute.Int("gen_ai.usage.cache_creation.input_tokens", r.Usage.CacheWriteTokens),
	}
	if r.Usage.CostUSD != nil {
		attrs = append(attrs, attribute.Float64("kimi_run.cost_usd", *r.Usage.CostUSD))
		t.inst.cost.Add(context.Background(), *r.Usage.CostUSD, metric.WithAttributes(attribute.String("gen_ai.request.model", st.model)))
	}
	if t.opts.Content {
		attrs = append(attrs, attribute.String("kimi_run.final_text", t.content(r.FinalText)))
	}
	st.run.SetAttributes(attrs...)
	if r.ExitCode != 0 {
		st.run.SetAttributes(attribute.String("error.type", r.TerminalReason))
		msg := r.TerminalReason
		if r.Error != nil {
			st.run.SetAttributes(attribute.String("kimi_run.error.kind", r.Error.Kind))
			msg = t.opts.Scrub(r.Error.Message)
		}
		st.run.SetStatus(codes.Error, msg)
	}
	st.run.End(trace.WithTimestamp(at))
	st.ended = true
	t.inst.runs.Add(context.Background(), 1, metric.WithAttributes(
		attribute.Int("exit_code", r.ExitCode), attribute.String("terminal_reason", r.TerminalReason)))
	t.inst.runTime.Record(context.Background(), at.Sub(st.start).Seconds(), metric.WithAttributes(attribute.Int("exit_code", r.ExitCode)))
}

// endAll ends every open span but the run's: tool calls, model calls and turns that the
// end of the run cut short.
func (t *Telemetry) endAll(at time.Time, why string) {
	st := &t.spans
	for id, ts := range st.tools {
		ts.span.SetStatus(codes.Error, why)
		ts.span.End(trace.WithTimestamp(at))
		delete(st.tools, id)
	}
	for _, sc := range st.scopes {
		t.endTurn(sc, at, "")
	}
}

// abandon ends the run's span when no result event came (a crash on the way out).
func (t *Telemetry) abandon(at time.Time) {
	st := &t.spans
	if st.ended || st.run == nil {
		return
	}
	t.endAll(at, "the run ended first")
	st.run.SetStatus(codes.Error, "the run ended without a result")
	st.run.End(trace.WithTimestamp(at))
	st.ended = true
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

// serverAttrs are server.address (the host alone, as the semantic conventions define it)
// and server.port when the endpoint names one.
func serverAttrs(hostPort string) []attribute.KeyValue {
	host, port, err := net.SplitHostPort(hostPort)
	if err != nil {
		return []attribute.KeyValue{attribute.String("server.address", hostPort)}
	}
	attrs := []attribute.KeyValue{attribute.String("server.address", host)}
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, attribute.Int("server.port", n))
	}
	return attrs
}

// providerName is gen_ai.provider.name for a provider type: the OpenTelemetry GenAI
// conventions' well-known values where one fits (openai, anthropic, gcp.gemini,
// gcp.vertex_ai), moonshot_ai for Kimi's API, the type itself otherwise.
func providerName(typ string) string {
	switch typ {
	case "kimi", "":
		return "moonshot_ai"
	case "openai_legacy", "openai_responses":
		return "openai"
	case "gemini", "google_genai":
		return "gcp.gemini"
	case "vertexai":
		return "gcp.vertex_ai"
	}
	return typ
}
