# shellcheck shell=bash
# benchlib.sh: what the benchmark scripts share, sourced from the repository's root.
#
# WORK is a new temporary directory, removed at exit together with the server
# start_benchserver started in it.

WORK="$(mktemp -d)"
SERVER_PID=""
bench_cleanup() {
	if [ -n "$SERVER_PID" ]; then
		kill "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	rm -rf "$WORK"
}
trap bench_cleanup EXIT

# start_benchserver [ARGS...] builds scripts/benchserver into WORK and starts it with ARGS
# (e.g. -lifetime 30m), then sets BASE to its URL (ending in /v1) and ROOT to BASE less
# /v1, under which its other paths (/think/20/v1, /shell/20/v1, /paced/...) are served. It
# ends the script when the server does not start.
start_benchserver() {
	timeout 600 go build -C scripts -o "$WORK/benchserver" ./benchserver # scripts/ is a module of its own
	"$WORK/benchserver" -url-file "$WORK/url" "$@" >/dev/null &
	SERVER_PID=$!
	for _ in $(seq 100); do
		[ -s "$WORK/url" ] && break
		sleep 0.05
	done
	if [ ! -s "$WORK/url" ]; then
		echo "$(basename "$0"): benchserver did not start" >&2
		exit 1
	fi
	# shellcheck disable=SC2034 # BASE and ROOT are for the scripts that source this file
	{
		BASE="$(cat "$WORK/url")"
		ROOT="${BASE%/v1}"
	}
}

# BENCH_AGENT is the agent file of every benchmark run: the default agent with Think, the
# tool of the cheap steps measured (the default agent does not offer it).
# shellcheck disable=SC2034 # for the scripts that source this file
BENCH_AGENT="$(pwd)/scripts/bench-agent.yaml"

# bench_check CMD... runs a kimi-run command line (stream-json) once and ends the script
# unless it exits 0 with every tool step a success: a step answered with an error (a tool
# the agent does not offer) would be measured in place of the step meant.
bench_check() {
	if ! "$@" >"$WORK/check" 2>&1; then
		echo "$(basename "$0"): the check run failed: $*" >&2
		cat "$WORK/check" >&2
		exit 1
	fi
	if grep -q '"is_error":true' "$WORK/check"; then
		echo "$(basename "$0"): a tool step of the check run failed: $*" >&2
		grep '"is_error":true' "$WORK/check" >&2
		exit 1
	fi
}
