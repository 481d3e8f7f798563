#!/usr/bin/env bash
# startup.sh: how long kimi-run takes to start, for `--version`, for a parse that does
# nothing (`--help`, output discarded) and for a one-answer run (`-p hi --no-session`
# against a local zero-latency server), against a hello-world Go binary as the floor.
# With BASE=<git ref> it also builds that commit and times both side by side, to give the
# before and after of a change; AFTER=<git ref> builds that commit instead of the working
# tree. docs/performance.md has the figures this printed.
#
# Usage: scripts/startup.sh                 (RUNS=200 and ROUNDS=3 can be overridden)
#        BASE=669fbb4 scripts/startup.sh
#        BASE=669fbb4 AFTER=edd6f66 scripts/startup.sh
#
# Binaries are built as releases are (CGO_ENABLED=0, -trimpath, -s -w). Each round runs
# hyperfine (-N, 20 warm-ups, RUNS runs) over every binary and case, alternating their
# order from round to round so that a change in the machine's load does not favour one
# side; the table gives the median of the rounds' medians, the best minimum, and the mean
# user+system CPU time. It then prints the package initialisers of kimi-run's own packages
# and of the three heaviest dependencies (GODEBUG=inittrace=1, median of 40 runs). Needs
# hyperfine (installed with apt-get when missing and root). Works in a temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS="${RUNS:-200}"
ROUNDS="${ROUNDS:-3}"
# shellcheck source=scripts/benchlib.sh
. scripts/benchlib.sh

if ! command -v hyperfine >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	apt-get install -y -qq hyperfine >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq hyperfine >/dev/null 2>&1; } || true
fi
if ! command -v hyperfine >/dev/null 2>&1; then
	echo "startup.sh needs hyperfine" >&2
	exit 1
fi

build() { CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$2" "$1"; }
# build_ref builds the commit ref as the binary named $2.
build_ref() {
	mkdir "$WORK/$2-src"
	git archive "$1" | tar -x -C "$WORK/$2-src"
	(cd "$WORK/$2-src" && build . "$WORK/$2")
}
echo "building..." >&2
if [ -n "${AFTER:-}" ]; then build_ref "$AFTER" after; else build . "$WORK/after"; fi
BINS=(after)
if [ -n "${BASE:-}" ]; then
	build_ref "$BASE" before
	BINS=(before after)
fi
mkdir -p "$WORK/hello"
printf 'package main\n\nimport "os"\n\nfunc main() { os.Stdout.WriteString("hello\\n") }\n' >"$WORK/hello/main.go"
printf 'module hello\n\ngo 1.21\n' >"$WORK/hello/go.mod"
(cd "$WORK/hello" && GOFLAGS= build . "$WORK/hello-go")

# A local zero-latency model server (scripts/benchserver) for the -p case: a whole run with
# one short answer and no session file, the set-up every run pays plus one request.
start_benchserver -lifetime 30m
export KIMI_API_KEY=sk-bench-not-a-real-key KIMI_MODEL_NAME=bench-model HOME="$WORK/home" XDG_STATE_HOME="$WORK/state"
mkdir -p "$HOME"

# The cases, as name|command.
CASES=("hello-world Go|$WORK/hello-go")
for b in "${BINS[@]}"; do
	CASES+=("$b --version|$WORK/$b --version" "$b --help|$WORK/$b --help"
		"$b -p|$WORK/$b --no-session -w $WORK -p hi --base-url $BASE")
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < ROUNDS; r++)); do
	order=("${CASES[@]}")
	if ((r % 2 == 1)); then # every other round runs the cases in reverse order
		order=()
		for ((i = ${#CASES[@]} - 1; i >= 0; i--)); do order+=("${CASES[i]}"); done
	fi
	args=()
	for c in "${order[@]}"; do args+=(-n "${c%%|*}" "${c#*|}"); done
	hyperfine -N --warmup 20 --runs "$RUNS" --style none --export-csv "$WORK/round$r.csv" "${args[@]}" >/dev/null 2>&1
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"

# CSV columns: command,mean,stddev,median,user,system,min,max (seconds).
printf '\n%-22s %10s %8s %10s\n' "case" "median ms" "min ms" "cpu ms"
for c in "${CASES[@]}"; do
	name="${c%%|*}"
	awk -F, -v name="$name" 'FNR > 1 && $1 == name { print $4, $7, $5 + $6 }' "$WORK"/round*.csv |
		sort -n | awk -v name="$name" '
			{ med[NR] = $1; if (NR == 1 || $2 < min) min = $2; cpu += $3 }
			END { printf "%-22s %10.2f %8.2f %10.2f\n", name, med[int((NR + 1) / 2)] * 1000, min * 1000, cpu / NR * 1000 }'
done

# inittrace prints, for each package matching the pattern, the median init time over 40 runs.
inittrace() {
	for ((i = 0; i < 40; i++)); do GODEBUG=inittrace=1 "$1" --version 2>&1 >/dev/null; done |
		awk '$1 == "init" { print $2, $5, $8, $10 }' | sort -k1,1 -k2,2n |
		awk '$1 != pkg { if (pkg != "") printf "  %-44s %6.3f ms %8d B %5d allocs\n", pkg, v[int((n + 1) / 2)], b, a; pkg = $1; n = 0 }
			{ v[++n] = $2; b = $3; a = $4 }
			END { printf "  %-44s %6.3f ms %8d B %5d allocs\n", pkg, v[int((n + 1) / 2)], b, a }' |
		grep -E 'kimi-run|x/net/html |BurntSushi/toml/internal|alecthomas/kong ' || true
}
for b in "${BINS[@]}"; do
	echo
	echo "package initialisers, $b (median of 40 runs of --version):"
	inittrace "$WORK/$b"
done
