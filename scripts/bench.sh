#!/usr/bin/env bash
# bench.sh: time the kimi-run binary end to end, as CI runs it, against a local zero-latency
# server (scripts/benchserver), and read each case's peak RSS. docs/performance.md has the
# targets and the figures this printed.
#
# Usage: scripts/bench.sh          (RUNS=30 and SHELL_RUNS=10 can be overridden)
#
# kimi-run is built the way goreleaser builds releases (CGO_ENABLED=0, -trimpath, -s -w);
# "version-go-build" is a plain `go build`, which links libc through cgo where a C
# compiler is present. Cases: two floors (/bin/true, a hello-world Go program) that show
# what any process costs on this machine right now; --version; a one-answer run with a
# session file (the default) and with --no-session; 20 steps of Think (a tool with no time
# of its own, offered by scripts/bench-agent.yaml, which every run uses); 20 steps of Shell `true`, also under --sandbox workspace-write when the
# kernel has Landlock, and both again with --files-changed tools (no git snapshot of the
# work dir before the first command: what is left is the launcher's share), and these two
# once more against a server that pauses 5 ms after each chunk (/paced/: a provider
# streams a reply over time, and the launcher starts while it does). Runs use this
# repository as the work dir. Where valgrind is installed, the instructions of one start
# of the launcher process (the binary in launcher mode, which exits at once without its
# socket) are counted against --version and the hello-world program: unlike wall time,
# the count does not depend on the machine's load.
#
# Timing uses hyperfine when present (installed with apt-get when missing and root), else a
# bash loop on $EPOCHREALTIME. cpu_ms is user+system time of the kimi-run process alone
# (the server is another process); it is steadier than wall time on a busy machine. Peak
# RSS is the largest of three runs under /usr/bin/time -v (the Debian package "time" is
# installed when missing and root). The load average is printed next to the figures.
# Nothing is written outside a temporary directory; the script takes about 3 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$(pwd)"

RUNS="${RUNS:-30}"
SHELL_RUNS="${SHELL_RUNS:-10}"
# shellcheck source=scripts/benchlib.sh
. scripts/benchlib.sh

# apt_install installs a Debian package when running as root with apt-get, quietly and
# within a bounded time; it never fails the script.
apt_install() {
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "installing $1..." >&2
		timeout 60 apt-get install -y -qq "$1" >/dev/null 2>&1 ||
			{ timeout 30 apt-get update -qq >/dev/null 2>&1 && timeout 30 apt-get install -y -qq "$1" >/dev/null 2>&1; } ||
			echo "could not install $1" >&2
	fi
}
command -v hyperfine >/dev/null 2>&1 || apt_install hyperfine
[ -x /usr/bin/time ] || apt_install time

echo "building kimi-run (release flags and plain go build), benchserver and hello-go..." >&2
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$WORK/kimi-run" .
go build -o "$WORK/kimi-run-go-build" .
mkdir -p "$WORK/hello"
printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n' >"$WORK/hello/main.go"
printf 'module hello\n\ngo 1.21\n' >"$WORK/hello/go.mod"
(cd "$WORK/hello" && CGO_ENABLED=0 GOFLAGS= go build -trimpath -ldflags "-s -w" -o "$WORK/hello-go" .)

start_benchserver -lifetime 6m

# Sessions go under $WORK/state, as they would go under ~/.local/state.
export KIMI_API_KEY=sk-bench-not-a-real-key KIMI_MODEL_NAME=bench-model
export XDG_STATE_HOME="$WORK/state" HOME="$WORK/home" NO_COLOR=1
mkdir -p "$HOME"
RUN=("$WORK/kimi-run" -w "$REPO" --agent-file "$BENCH_AGENT" --output-format stream-json -p "Say that the benchmark is done.")
bench_check "${RUN[@]}" --base-url "$ROOT/think/2/v1" --no-session

NAMES=()
CMDS=()
COUNTS=()
add() { # add NAME RUNS ARGS... registers one case
	local name=$1 runs=$2
	shift 2
	NAMES+=("$name")
	COUNTS+=("$runs")
	CMDS+=("$(printf '%q ' "$@")")
}
add floor-true "$RUNS" /bin/true
add floor-bash-c-true "$RUNS" bash -c true
add floor-hello-go "$RUNS" "$WORK/hello-go"
add version "$RUNS" "$WORK/kimi-run" --version
add version-go-build "$RUNS" "$WORK/kimi-run-go-build" --version
add one-answer "$RUNS" "${RUN[@]}" --base-url "$BASE"
add one-answer-no-session "$RUNS" "${RUN[@]}" --base-url "$BASE" --no-session
add think-20-steps "$RUNS" "${RUN[@]}" --base-url "$ROOT/think/20/v1"
add shell-20-steps "$SHELL_RUNS" "${RUN[@]}" --base-url "$ROOT/shell/20/v1"
# The same under the Landlock sandbox, where the kernel has it: each command starts
# through the launcher's confined arm.
SANDBOX=""
if "${RUN[@]}" --base-url "$BASE" --no-session --sandbox workspace-write >/dev/null 2>&1; then
	SANDBOX=1
	add shell-20-steps-sandbox "$SHELL_RUNS" "${RUN[@]}" --base-url "$ROOT/shell/20/v1" --sandbox workspace-write
fi
# The same without files_changed's git snapshot: Think's twin for the launcher's share.
add think-20-no-git "$RUNS" "${RUN[@]}" --base-url "$ROOT/think/20/v1" --files-changed tools
add shell-20-no-git "$SHELL_RUNS" "${RUN[@]}" --base-url "$ROOT/shell/20/v1" --files-changed tools
if [ -n "$SANDBOX" ]; then
	add shell-20-no-git-sbx "$SHELL_RUNS" "${RUN[@]}" --base-url "$ROOT/shell/20/v1" --files-changed tools --sandbox workspace-write
fi
add think-20-paced "$SHELL_RUNS" "${RUN[@]}" --base-url "$ROOT/paced/think/20/v1" --files-changed tools
add shell-20-paced "$SHELL_RUNS" "${RUN[@]}" --base-url "$ROOT/paced/shell/20/v1" --files-changed tools
if [ -n "$SANDBOX" ]; then
	add shell-20-paced-sbx "$SHELL_RUNS" "${RUN[@]}" --base-url "$ROOT/paced/shell/20/v1" --files-changed tools --sandbox workspace-write
fi

# Check every case once: it must exit 0 and, for runs, end with a completed result.
for i in "${!NAMES[@]}"; do
	if ! out="$(eval "${CMDS[$i]}" 2>&1)"; then
		printf 'case %s failed:\n%s\n' "${NAMES[$i]}" "$out" >&2
		exit 1
	fi
	case "${NAMES[$i]}" in
	version* | floor-*) ;;
	*)
		if ! grep -q '"terminal_reason":"completed"' <<<"$out"; then
			printf 'case %s did not complete:\n%s\n' "${NAMES[$i]}" "$out" >&2
			exit 1
		fi
		;;
	esac
done

# stats reads wall times in seconds, one a line, and prints "median min mean" in ms.
stats() {
	sort -n | awk '{ v[NR] = $1; s += $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f %.1f %.1f\n", m * 1000, v[1] * 1000, s / NR * 1000 }'
}

# json_field FILE NAME prints a number field of hyperfine's JSON export, without jq.
json_field() {
	tr -d ' \n' <"$1" | sed -e "s/.*\"$2\":\([-0-9.e]*\).*/\1/"
}

# time_case NAME RUNS CMD prints "median min mean cpu" in ms for RUNS runs after three
# warm-up runs; cpu is "-" without hyperfine.
time_case() {
	local name=$1 runs=$2 cmd=$3
	if command -v hyperfine >/dev/null 2>&1; then
		local json="$WORK/$name.json"
		hyperfine -N --style none --warmup 3 --runs "$runs" --export-json "$json" "$cmd" >/dev/null 2>&1
		local wall cpu
		# One time per line from the "times" array.
		wall=$(tr -d ' \n' <"$json" | sed -e 's/.*"times":\[\([^]]*\)\].*/\1/' | tr ',' '\n' | stats)
		cpu=$(awk -v u="$(json_field "$json" user)" -v s="$(json_field "$json" system)" 'BEGIN { printf "%.1f", (u + s) * 1000 }')
		echo "$wall $cpu"
	else
		local i s e
		for i in 1 2 3; do eval "$cmd" >/dev/null 2>&1; done
		for ((i = 0; i < runs; i++)); do
			s=$EPOCHREALTIME
			eval "$cmd" >/dev/null 2>&1
			e=$EPOCHREALTIME
			echo "$s $e" | awk '{ printf "%.6f\n", $2 - $1 }'
		done | stats | sed 's/$/ -/'
	fi
}

# peak_rss CMD prints the largest maximum resident set size of three runs, in MB.
peak_rss() {
	if [ ! -x /usr/bin/time ]; then
		echo "-"
		return
	fi
	local best=0 kb
	for _ in 1 2 3; do
		kb=$(eval "/usr/bin/time -v $1" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { gsub(/ /, "", $2); print $2 }')
		[ "${kb:-0}" -gt "$best" ] && best=$kb
	done
	awk -v kb="$best" 'BEGIN { printf "%.1f\n", kb / 1024 }'
}

timer="bash loop on \$EPOCHREALTIME"
command -v hyperfine >/dev/null 2>&1 && timer="$(hyperfine --version)"
echo
echo "kimi-run end-to-end benchmark: $(nproc) CPUs, $(go version | awk '{print $3}'), timer: $timer"
echo "release binary: $(du -k "$WORK/kimi-run" | cut -f1) KiB; load average before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo
printf '%-22s %5s %10s %7s %8s %7s %12s\n' case runs median_ms min_ms mean_ms cpu_ms peak_rss_MB
declare -A MED CPU
for i in "${!NAMES[@]}"; do
	read -r med lo mean cpu < <(time_case "${NAMES[$i]}" "${COUNTS[$i]}" "${CMDS[$i]}")
	rss=$(peak_rss "${CMDS[$i]}")
	MED[${NAMES[$i]}]=$med
	CPU[${NAMES[$i]}]=$cpu
	printf '%-22s %5s %10s %7s %8s %7s %12s\n' "${NAMES[$i]}" "${COUNTS[$i]}" "$med" "$lo" "$mean" "$cpu" "$rss"
done
echo
# Per-step cost: the 20-step run minus the one-answer run (both with a session), over 20.
awk -v a="${MED[one-answer]}" -v t="${MED[think-20-steps]}" -v s="${MED[shell-20-steps]}" \
	-v ca="${CPU[one-answer]}" -v ct="${CPU[think-20-steps]}" 'BEGIN {
	printf "extra per Think step: %.2f ms wall", (t - a) / 20
	if (ca != "-") printf ", %.2f ms CPU", (ct - ca) / 20
	printf "\nextra per Shell step (includes starting bash): %.2f ms wall\n", (s - a) / 20 }'
# What a Shell call costs beyond starting its command directly (issue 26): a Shell step
# minus a Think step minus a bare `bash -c true`, the launcher's start spread over the 20.
awk -v t="${MED[think-20-steps]}" -v s="${MED[shell-20-steps]}" -v x="${MED[shell-20-steps-sandbox]:-}" \
	-v b="${MED[floor-bash-c-true]}" 'BEGIN {
	printf "Shell call beyond a bare bash -c true: %.2f ms wall", (s - t) / 20 - b
	if (x != "") printf "; sandboxed: %.2f ms", (x - t) / 20 - b
	printf "\n" }'
awk -v t="${MED[think-20-no-git]}" -v s="${MED[shell-20-no-git]}" -v x="${MED[shell-20-no-git-sbx]:-}" \
	-v b="${MED[floor-bash-c-true]}" 'BEGIN {
	printf "the same without the git snapshot (--files-changed tools): %.2f ms wall", (s - t) / 20 - b
	if (x != "") printf "; sandboxed: %.2f ms", (x - t) / 20 - b
	printf "\n" }'
awk -v t="${MED[think-20-paced]}" -v s="${MED[shell-20-paced]}" -v x="${MED[shell-20-paced-sbx]:-}" \
	-v b="${MED[floor-bash-c-true]}" 'BEGIN {
	printf "the same, the reply streamed over time (/paced/): %.2f ms wall", (s - t) / 20 - b
	if (x != "") printf "; sandboxed: %.2f ms", (x - t) / 20 - b
	printf "\n" }'
# Instructions of one start, where valgrind can count them (user space only: the page
# faults of a larger binary are the kernel's and not counted).
if command -v valgrind >/dev/null 2>&1; then
	count() { valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/I *refs:/ { gsub(",", "", $NF); print $NF }'; }
	printf 'instructions of one start: launcher mode %s, --version %s, hello-world %s\n' \
		"$(count "$WORK/kimi-run" __kimi-run-launcher top '{}')" "$(count "$WORK/kimi-run" --version)" "$(count "$WORK/hello-go")"
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
