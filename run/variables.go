package run

import (
	"strings"

	"github.com/kimi-run/kimi-run/config"
)

// variables are those run reads itself, or hands to the packages that read them (session's
// state dir, telemetry's): beside config's and the flags', --help-all and
// docs/reference.md list them (Variables).
var variables = []config.Variable{
	{Names: []string{"XDG_STATE_HOME"}, Meaning: "sessions go under `$XDG_STATE_HOME/kimi-run/sessions/` (default `~/.local/state`)"},
	{Names: []string{"NO_COLOR"}, Meaning: "no colour on stderr"},
	{Names: []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_*"}, Meaning: "OpenTelemetry's standard variables: export traces and metrics over OTLP; see [OpenTelemetry](telemetry.md#in-short)"},
	{Names: []string{"TRACEPARENT", "TRACESTATE"}, Meaning: "with OpenTelemetry on, the parent of the run's span (W3C trace context)"},
	{Names: []string{"KIMI_RUN_NO_ROOT_WARNING"}, Meaning: "`1` silences the warning for a run as root outside a container without the sandbox"},
	{Names: []string{"KIMI_RUN_CGROUP"}, Meaning: "`off` keeps kimi-run from making a cgroup for the run's processes (Linux; [sandbox.md](sandbox.md))"},
	{Names: []string{"KIMI_RUN_NS"}, Meaning: "`off` runs sandboxed commands without namespaces of their own (their own `/proc`, read-only mounts outside the writable dirs; Linux; [sandbox.md](sandbox.md))"},
	{Names: []string{"KIMI_RUN_NETNS"}, Meaning: "`off`: under `--allow-host`, no network namespace of its own for commands; they may reach any address on the proxy's port ([sandbox.md](sandbox.md))"},
	{Names: []string{"KIMI_RUN_TASK_LIMIT"}, Meaning: "the most tasks (processes and threads) a sandboxed run's processes may have together, where a pids controller can be had; default 8192, `0` for no limit"},
	{Names: []string{stacksEnv}, Meaning: "`1`: SIGQUIT also writes every goroutine's stack to stderr"},
}

// Variables is every environment variable kimi-run reads: config's, the flags' and run's
// own, in the order --help-all lists them.
func Variables() []config.Variable {
	all := append(append(append([]config.Variable{}, config.Variables...), config.FlagVariables()...), variables...)
	return all
}

// description is what --help-all and the man page print above the flags: a paragraph, the
// environment, the exit codes (manpage.Page.Description says the shape).
func description() string {
	return "Run a coding agent once, without a person present: every tool is approved automatically.\n\n" +
		"Environment (flags win over it, and it over the config file):\n" +
		config.EnvironmentHelp(Variables()) +
		"A server on localhost needs no key. OpenTelemetry's other standard variables (OTEL_*):\n" +
		"docs/telemetry.md.\n\n" + strings.TrimSpace(exitCodesHelp)
}

const exitCodesHelp = `Exit codes: 0 done, 1 runtime error, 2 usage error, 3 step limit, loop guard or answer
cut at the token limit, 4 Ralph/flow budget used up, 5 authentication refused, 6 token,
cost or tool-call budget used up (--max-tokens-total, --max-cost-usd, --max-tool-calls),
7 final answer never matched --json-schema, 8 the provider stopped the answer or refused
the prompt (content_filter, Anthropic's refusal, Gemini's SAFETY, ...), 9 a tool call was
refused under --fail-on-denial, 75 transient provider failure after retries or session in
use (worth retrying later), 124 --timeout, 130/143 SIGINT/SIGTERM, 129/131 SIGHUP/SIGQUIT.`
