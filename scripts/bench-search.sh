#!/usr/bin/env bash
# bench-search.sh: benchmark the pure-Go search engines (tools/search) on the Go source tree and,
# when ripgrep is available, time rg itself on the same tree with the same queries.
#
# Usage: scripts/bench-search.sh    (BENCHTIME=10x, COUNT=5 and RUNS=15 can be overridden)
# Figures are medians, which resist the noise of a shared machine.
# When rg is missing and the script runs as root, it installs ripgrep with apt-get. Tests
# and CI never need rg; only this script installs it.
set -euo pipefail
cd "$(dirname "$0")/.."

SRC="$(go env GOROOT)/src"
BENCHTIME="${BENCHTIME:-10x}"
COUNT="${COUNT:-5}"
RUNS="${RUNS:-15}"
# Keep these in step with the constants in tools/search/bench_test.go.
LITERAL='ErrUnexpectedEOF'
REGEX='func \w+\(ctx context\.Context'

if [ ! -d "$SRC" ]; then
	echo "no Go source tree at $SRC" >&2
	exit 1
fi
if ! command -v rg >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "installing ripgrep for the comparison..." >&2
	apt-get install -y -qq ripgrep >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq ripgrep >/dev/null 2>&1; } ||
		echo "could not install ripgrep; showing Go figures only" >&2
fi

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
go test ./tools/search -run '^$' -bench 'BenchmarkGrep|BenchmarkGlob' -benchmem -benchtime "$BENCHTIME" -count "$COUNT" | tee "$out"

# median prints the median of the numbers on stdin (in ns) in milliseconds, or "-".
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) { printf "-"; exit } m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.1f", m / 1e6 }'
}

# bench_ms prints the median ns/op of one benchmark, in milliseconds.
bench_ms() {
	awk -v name="$1" '$1 ~ "^"name"(-[0-9]+)?$" { print $3 }' "$out" | median
}

# time_ms prints the median wall time of RUNS runs of a command, in milliseconds, or
# "-" without rg.
time_ms() {
	if ! command -v rg >/dev/null 2>&1; then
		printf -- "-"
		return
	fi
	"$@" >/dev/null 2>&1 || true # warm the page cache
	local start end
	for ((i = 0; i < RUNS; i++)); do
		start=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		end=$(date +%s%N)
		echo $((end - start))
	done | median
}

rg_walk=(--hidden --no-require-git --no-ignore-global --no-config --glob '!.git')
rows=(
	"Grep literal (files)|BenchmarkGrepLiteral"
	"Grep regex (files)|BenchmarkGrepRegex"
	"Grep literal (content)|BenchmarkGrepContent"
	"Glob **/*.go|BenchmarkGlob"
)
run_rg() {
	case "$1" in
	BenchmarkGrepLiteral) rg -l "${rg_walk[@]}" -e "$LITERAL" "$SRC" ;;
	BenchmarkGrepRegex) rg -l "${rg_walk[@]}" -e "$REGEX" "$SRC" ;;
	BenchmarkGrepContent) rg -n "${rg_walk[@]}" -e "$LITERAL" "$SRC" ;;
	BenchmarkGlob) rg --files "${rg_walk[@]}" --glob '!node_modules' --glob '*.go' "$SRC" ;;
	esac
}

echo
echo "Tree: $SRC ($(find "$SRC" -type f | wc -l) files), $(nproc) cores, $(rg --version 2>/dev/null | head -1 || echo 'rg not installed')"
printf '%-24s %12s %14s %12s %10s\n' "query" "pure Go ms" "engine via rg ms" "rg alone ms" "Go / rg"
for row in "${rows[@]}"; do
	IFS='|' read -r label bench <<<"$row"
	go_ms="$(bench_ms "$bench/engine=go")"
	via_ms="$(bench_ms "$bench/engine=rg")"
	rg_ms="$(time_ms run_rg "$bench")"
	ratio="-"
	if [ "$rg_ms" != "-" ] && [ "$go_ms" != "-" ]; then
		ratio="$(awk -v a="$go_ms" -v b="$rg_ms" 'BEGIN { printf "%.2fx", a / b }')"
	fi
	printf '%-24s %12s %14s %12s %10s\n' "$label" "$go_ms" "$via_ms" "$rg_ms" "$ratio"
done
