package run

import (
	"slices"

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
	{Names: []string{"KIMI_RUN_NS"}, Meaning: "`off` runs sandboxed commands without namespaces of their own (their own `/proc`, read-only mounts outside the writable dirs, a `/tmp` of their own; Linux; [sandbox.md](sandbox.md)); a comma-separated list of `userns`, `pid`, `readonly`, `tmp` leaves those parts out, each with a `warning`"},
	{Names: []string{"KIMI_RUN_NETNS"}, Meaning: "`off`: under `--allow-host`, no network namespace of its own for commands; they may reach any address on the proxy's port ([sandbox.md](sandbox.md))"},
	{Names: []string{"KIMI_RUN_TASK_LIMIT"}, Meaning: "the most tasks (processes and threads) a sandboxed run's processes may have together, where a pids controller can be had; default 8192, `0` for no limit"},
	{Names: []string{stacksEnv}, Meaning: "`1`: SIGQUIT also writes every goroutine's stack to stderr"},
}

// Variables is every environment variable kimi-run reads: config's, the flags' and run's
// own, in the order --help-all lists them.
func Variables() []config.Variable {
	return slices.Concat(config.Variables, config.FlagVariables(), variables)
}

// description is what --help-all and the man page print above the flags: a paragraph, the
// environment, the exit codes (manpage.Page.Description says the shape).
func description() string {
	return "Run a coding agent once, without a person present: every tool is approved automatically.\n\n" +
		"Environment (flags win over it, and it over the config file):\n" +
		config.EnvironmentHelp(Variables()) +
		"A server on localhost needs no key.\n\n" + exitCodesHelp
}
