#!/usr/bin/env bash
# shellcost.sh: what a Shell call costs beyond starting its command directly (issue 26),
# measured in interleaved rounds so that a change of load biases no case.
#
# Usage: scripts/shellcost.sh [ROUNDS]            (default 25; BIN=path times another build;
#        BASE_BIN=path also times a second build in the same rounds, and prints the differences:
#        of whole runs of Shell steps, which a change of every step's cost moves too, and of
#        the Shell call beyond a Think step, which only a change of Shell's own cost moves)
#
# Each round runs, in an order reversed every other round: 20 steps of Think (a tool with
# no time of its own, offered by scripts/bench-agent.yaml, which every run uses), 20 steps of Shell `true`, the same under --sandbox workspace-write
# where the kernel has Landlock, and 20 bare starts of `bash -c true` from this shell. A
# round's figure is (shell - think) / 20 - bare / 20: the extra wall time of one Shell
# call, the launcher's start and end spread over the 20 as a run pays them once. The script
# prints the median and the quartiles of the rounds' figures. The runs use an empty work
# dir, --no-session and --files-changed tools, so neither files_changed's git snapshot nor
# the session's fsyncs (paid alike by both) add noise; docs/performance.md has the figures
# and the reasons. Nothing is written outside a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS="${1:-25}"
# shellcheck source=scripts/benchlib.sh
. scripts/benchlib.sh

BIN="${BIN:-}"
if [ -z "$BIN" ]; then
	echo "building kimi-run (release flags) and benchserver..." >&2
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$WORK/kimi-run" .
	BIN="$WORK/kimi-run"
fi
start_benchserver -lifetime 30m

export KIMI_API_KEY=sk-bench-not-a-real-key KIMI_MODEL_NAME=bench-model KIMI_RUN_NO_ROOT_WARNING=1
export XDG_STATE_HOME="$WORK/state" HOME="$WORK/home" NO_COLOR=1
mkdir -p "$HOME" "$WORK/dir"
RUN=("$BIN" -w "$WORK/dir" --agent-file "$BENCH_AGENT" --no-session --files-changed tools --output-format stream-json -p "Say that the benchmark is done.")
bench_check "${RUN[@]}" --base-url "$ROOT/think/2/v1"

# ms CMD... runs CMD once, quietly, and prints its wall time in ms; a failure ends the script.
ms() {
	local s e
	s=$EPOCHREALTIME
	if ! "$@" >/dev/null 2>"$WORK/err"; then
		echo "failed: $*" >&2
		cat "$WORK/err" >&2
		exit 1
	fi
	e=$EPOCHREALTIME
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f\n", (e - s) * 1000 }'
}
bare20() {
	for _ in $(seq 20); do bash -c true; done
}

SANDBOX=""
if "${RUN[@]}" --base-url "$ROOT/shell/1/v1" --sandbox workspace-write >/dev/null 2>&1; then
	SANDBOX=1
fi
CASES=(think shell bare)
[ -n "$SANDBOX" ] && CASES+=(sandboxed)
BASE_BIN="${BASE_BIN:-}"
RUNB=("$BASE_BIN" "${RUN[@]:1}")
if [ -n "$BASE_BIN" ]; then
	CASES+=(base-think base-shell)
	[ -n "$SANDBOX" ] && CASES+=(base-sandboxed)
fi

# quartiles reads numbers, one a line, and prints "median ms (quartiles q1 to q3)".
quartiles() {
	sort -n | awk '{ v[NR] = $1 }
		function at(p) { return v[int(p * (NR - 1) + 0.5) + 1] }
		END { printf "%.2f ms (quartiles %.2f to %.2f)", at(0.5), at(0.25), at(0.75) }'
}

echo "$ROUNDS rounds of ${CASES[*]}; load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for ((r = 0; r < ROUNDS + 2; r++)); do # the first two rounds warm up and are not counted
	order=("${CASES[@]}")
	if ((r % 2)); then
		order=()
		for ((i = ${#CASES[@]} - 1; i >= 0; i--)); do order+=("${CASES[$i]}"); done
	fi
	declare -A T=()
	for c in "${order[@]}"; do
		case $c in
		think) T[think]=$(ms "${RUN[@]}" --base-url "$ROOT/think/20/v1") ;;
		shell) T[shell]=$(ms "${RUN[@]}" --base-url "$ROOT/shell/20/v1") ;;
		sandboxed) T[sandboxed]=$(ms "${RUN[@]}" --base-url "$ROOT/shell/20/v1" --sandbox workspace-write) ;;
		bare) T[bare]=$(ms bare20) ;;
		base-think) T[bthink]=$(ms "${RUNB[@]}" --base-url "$ROOT/think/20/v1") ;;
		base-shell) T[bshell]=$(ms "${RUNB[@]}" --base-url "$ROOT/shell/20/v1") ;;
		base-sandboxed) T[bsandboxed]=$(ms "${RUNB[@]}" --base-url "$ROOT/shell/20/v1" --sandbox workspace-write) ;;
		esac
	done
	((r < 2)) && continue
	echo "${T[think]} ${T[shell]} ${T[sandboxed]:-0} ${T[bare]} ${T[bshell]:-0} ${T[bsandboxed]:-0} ${T[bthink]:-0}" >>"$WORK/rounds"
done

echo "kimi-run: $BIN; $(nproc) CPUs; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '{ print $1 }' "$WORK/rounds" | quartiles | sed 's/^/20 Think steps: /'
echo
awk '{ print $4 / 20 }' "$WORK/rounds" | quartiles | sed 's/^/a bare bash -c true: /'
echo
awk '{ print ($2 - $1) / 20 - $4 / 20 }' "$WORK/rounds" | quartiles | sed 's/^/Shell call beyond a bare start: /'
echo
if [ -n "$SANDBOX" ]; then
	awk '{ print ($3 - $1) / 20 - $4 / 20 }' "$WORK/rounds" | quartiles | sed 's/^/sandboxed Shell call beyond a bare start: /'
	echo
fi
if [ -n "$BASE_BIN" ]; then
	echo "BASE_BIN: $BASE_BIN"
	awk '{ print ($2 - $5) / 20 }' "$WORK/rounds" | quartiles | sed 's/^/Shell call, this build less BASE_BIN: /'
	echo
	if [ -n "$SANDBOX" ]; then
		awk '{ print ($3 - $6) / 20 }' "$WORK/rounds" | quartiles | sed 's/^/sandboxed Shell call, this build less BASE_BIN: /'
		echo
	fi
	awk '{ print ($2 - $1 - $5 + $7) / 20 }' "$WORK/rounds" | quartiles | sed 's/^/Shell call beyond a Think step, this build less BASE_BIN: /'
	echo
	if [ -n "$SANDBOX" ]; then
		awk '{ print ($3 - $1 - $6 + $7) / 20 }' "$WORK/rounds" | quartiles | sed 's/^/sandboxed Shell call beyond a Think step, this build less BASE_BIN: /'
		echo
	fi
fi
