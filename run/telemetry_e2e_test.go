package run_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kimi-run/kimi-run/internal/otlptest"
	"github.com/kimi-run/kimi-run/internal/scripted"
)

// The run's trace and metrics reach an OTLP receiver on loopback, over HTTP/protobuf and
// gRPC: a span per run, turn, model call and tool call, the subagent nested under its Agent
// call, all under the pipeline's TRACEPARENT; and never the prompt, a tool's arguments or
// output, or the key.
// The runs that export telemetry are processes of their own: the OTel SDK's error handler
// and resource are process-wide, and these tests run in parallel.
func TestTelemetryExportsTheRun(t *testing.T) {
	t.Parallel()
	const (
		traceID = "0af7651916cd43dd8448eb211c80319c"
		spanID  = "b7ad6b7169203331"
	)
	for _, proto := range []string{"http/protobuf", "grpc"} {
		t.Run(proto, func(t *testing.T) {
			srv := scripted.New(t,
				scripted.ToolCalls(scripted.CallID("call_task", "Agent", `{"description":"ARG-MARKER task","prompt":"ARG-MARKER count","subagent_type":"coder"}`)),
				scripted.ToolCalls(scripted.CallID("call_sh", "Shell", `{"command":"echo OUTPUT-MARKER; exit 1"}`)),
				scripted.Reply(scripted.Say("There are none."), scripted.Usage(50, 5, 0)),
				scripted.Reply(scripted.Say("None."), scripted.Usage(100, 10, 40)),
			)
			rcv := otlptest.New(t)
			endpoint := rcv.URL
			if proto == "grpc" {
				endpoint = rcv.Addr
			}
			env := map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
				"OTEL_EXPORTER_OTLP_PROTOCOL": proto,
				"OTEL_SERVICE_NAME":           "nightly-fix",
				"TRACEPARENT":                 "00-" + traceID + "-" + spanID + "-01",
			}
			// A process of its own: the OTel SDK's resource reads OTEL_SERVICE_NAME from the
			// process environment, not from the run's (IO.Getenv).
			r := kimi(t, srv, invocation{env: env, proc: true, args: []string{"-p", "PROMPT-MARKER how many?"}})
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if strings.Contains(r.stderr, "telemetry") {
				t.Errorf("stderr mentions telemetry:\n%s", r.stderr)
			}
			runs := rcv.Named("invoke_agent kimi-run")
			if len(runs) != 1 {
				t.Fatalf("%d run spans, want 1: %v", len(runs), spanNames(rcv))
			}
			root := runs[0]
			if root.TraceID() != traceID || root.ParentID() != spanID || root.Resource["service.name"] != "nightly-fix" {
				t.Errorf("run span: trace %s parent %s resource %v", root.TraceID(), root.ParentID(), root.Resource)
			}
			if root.Attr("kimi_run.exit_code") != "0" || root.Attr("kimi_run.terminal_reason") != "completed" || root.Attr("gen_ai.request.model") != "test-model" {
				t.Errorf("run span attributes: %v", root.Attributes)
			}
			agent, shell := rcv.Named("execute_tool Agent"), rcv.Named("execute_tool Shell")
			if len(agent) != 1 || len(shell) != 1 || len(rcv.Named("turn")) != 2 || len(rcv.Named("chat test-model")) != 4 {
				t.Fatalf("spans: %v", spanNames(rcv))
			}
			// The Shell call ran in the subagent: its span is under the subagent's turn,
			// which is under the Agent call.
			var subTurn otlptest.Span
			for _, s := range rcv.Named("turn") {
				if s.ParentID() == agent[0].SpanID() {
					subTurn = s
				}
			}
			if subTurn.Span == nil || shell[0].ParentID() != subTurn.SpanID() {
				t.Errorf("the subagent's work is not nested under its Agent call: %v", spanNames(rcv))
			}
			if shell[0].Status.GetCode() != 2 {
				t.Errorf("the failed Shell call's span has status %v", shell[0].Status)
			}
			if got := rcv.Sum("kimi_run.tokens", map[string]string{"gen_ai.token.type": "input"}); got != 350 {
				t.Errorf("input tokens = %v, want 350", got)
			}
			if got := rcv.Sum("kimi_run.runs", map[string]string{"exit_code": "0"}); got != 1 {
				t.Errorf("runs with exit 0 = %v", got)
			}
			raw := rcv.Raw()
			for _, s := range []string{testKey, "PROMPT-MARKER", "ARG-MARKER", "OUTPUT-MARKER"} {
				if bytes.Contains(raw, []byte(s)) {
					t.Errorf("the collector received %q", s)
				}
			}
		})
	}
}

// --otel-log-content puts the prompt and the tools' arguments and outputs on the spans,
// scrubbed of the key.
func TestTelemetryContentFlag(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t,
		scripted.ToolCalls(scripted.CallID("c1", "Shell", `{"command":"echo OUTPUT-MARKER \"$HOME\""}`)),
		scripted.Text("done"),
	)
	rcv := otlptest.New(t)
	r := kimi(t, srv, invocation{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": rcv.URL + "/v1/traces"}, proc: true,
		args: []string{"--otel-log-content", "-p", "PROMPT-MARKER key " + testKey}})
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	root, shell := rcv.Named("invoke_agent kimi-run"), rcv.Named("execute_tool Shell")
	if len(root) != 1 || len(shell) != 1 {
		t.Fatalf("spans: %v", spanNames(rcv))
	}
	if p := root[0].Attr("kimi_run.prompt"); p != "PROMPT-MARKER key [redacted]" {
		t.Errorf("prompt on the run span = %q", p)
	}
	if !strings.Contains(shell[0].Attr("gen_ai.tool.call.result"), "OUTPUT-MARKER") || !strings.Contains(shell[0].Attr("gen_ai.tool.call.arguments"), "echo OUTPUT-MARKER") {
		t.Errorf("tool span attributes: %v", shell[0].Attributes)
	}
	if bytes.Contains(rcv.Raw(), []byte(testKey)) {
		t.Errorf("the collector received the key")
	}
}

// A collector on a closed port, or one that never answers, changes neither the exit code
// nor the answer; the run says on stderr that telemetry was lost. The flush is bounded by
// OTEL_EXPORTER_OTLP_TIMEOUT (without the bound the "never answers" case would hang).
func TestTelemetryCollectorDown(t *testing.T) {
	t.Parallel()
	for name, endpoint := range map[string]string{"closed port": otlptest.ClosedPort(t), "never answers": otlptest.Stall(t)} {
		for _, proto := range []string{"http/protobuf", "grpc"} {
			t.Run(name+"/"+proto, func(t *testing.T) {
				srv := scripted.New(t, scripted.Text("the answer"))
				env := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": proto,
					"OTEL_EXPORTER_OTLP_TIMEOUT": "300"}
				r := kimi(t, srv, invocation{env: env, proc: true, args: []string{"-p", "x"}})
				if r.code != 0 || r.stdout != "the answer\n" {
					t.Errorf("exit %d, stdout %q: %s", r.code, r.stdout, r.stderr)
				}
				// One line, as docs/telemetry.md promises, naming both signals.
				var lines []string
				for _, l := range strings.Split(r.stderr, "\n") {
					if strings.Contains(l, "telemetry") {
						lines = append(lines, l)
					}
				}
				if len(lines) != 1 || !strings.HasPrefix(lines[0], "kimi-run: telemetry: not everything reached the collector: traces: ") ||
					!strings.Contains(lines[0], "; metrics: ") {
					t.Errorf("stderr does not say in one line that traces and metrics were lost:\n%s", r.stderr)
				}
			})
		}
	}
}

// Without an endpoint nothing starts, whatever else of OTEL_* is set.
func TestTelemetryOffByDefault(t *testing.T) {
	t.Parallel()
	srv := scripted.New(t, scripted.Text("ok"))
	env := map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	r := kimi(t, srv, invocation{env: env, args: []string{"-p", "x"}})
	if r.code != 0 || strings.Contains(r.stderr, "telemetry") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

func spanNames(rcv *otlptest.Receiver) []string {
	var out []string
	for _, s := range rcv.Spans() {
		out = append(out, s.Name)
	}
	return out
}
