// The run's own span: opened when telemetry starts, named by the init event, closed by the
// result (or abandoned), with the counts of the whole run.

package telemetry

import (
	"context"
	"net"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/kimi-run/kimi-run/event"
)

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

// initRun puts what the init event says of the run (model, provider, session, server) on
// the run's span.
func (t *Telemetry) initRun(d event.Init) {
	st := &t.spans
	st.model, st.provider = d.Model, d.Provider
	if t.opts.ProviderName != nil {
		st.provider = t.opts.ProviderName(d.Provider)
	}
	st.run.SetAttributes(
		attribute.String("gen_ai.request.model", d.Model),
		attribute.String("gen_ai.provider.name", st.provider),
		attribute.String("session.id", d.SessionID),
		attribute.Int("kimi_run.tools", len(d.Tools)),
	)
	st.run.SetAttributes(serverAttrs(d.BaseURLHost)...)
}

// finishRun closes every span with the run's outcome and counts the run.
func (t *Telemetry) finishRun(r event.Result, at time.Time) {
	st := &t.spans
	t.endAll(at)
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
func (t *Telemetry) endAll(at time.Time) {
	st := &t.spans
	for id, ts := range st.tools {
		ts.span.SetStatus(codes.Error, "the run ended first")
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
	t.endAll(at)
	st.run.SetStatus(codes.Error, "the run ended without a result")
	st.run.End(trace.WithTimestamp(at))
	st.ended = true
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
