#!/usr/bin/env bash
# Measures run/'s statement coverage honestly: the tests that call run.Main in the test
# process and the runs of the kimi-run binary that the end-to-end tests start both count.
# `go test -cover ./run/` alone sees only the first; here the binary is built with -cover
# (KIMI_RUN_COVERDIR, see run/e2e_test.go's TestMain) and writes its counters next to the
# test binary's, and `go tool covdata` merges the two.
#
#   scripts/cover.sh                 # run/'s figure: in-process, subprocesses, merged
#   scripts/cover.sh -run TestExit   # extra arguments go to go test
#   COVER_OUT=dir scripts/cover.sh   # keep the counters (and cover.txt, a text profile)
#
# The figure printed last is the one docs/performance.md records.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${COVER_OUT:-}
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
rm -rf "$out/inproc" "$out/binary"
mkdir -p "$out/inproc" "$out/binary"
pkgs=github.com/kimi-run/kimi-run/...
run=github.com/kimi-run/kimi-run/run

KIMI_RUN_COVERDIR="$out/binary" go test -count=1 -covermode=set -coverpkg="$pkgs" ./run/ "$@" \
  -args -test.gocoverdir="$out/inproc" >"$out/test.log" 2>&1 || {
  cat "$out/test.log"
  echo "cover.sh: the tests failed; no figure" >&2
  exit 1
}
tail -n 1 "$out/test.log"

percent() { go tool covdata percent -i="$1" -pkg="$run" | awk '{ print $(NF-2) }'; }
echo "run/ coverage, in-process tests only:   $(percent "$out/inproc")"
echo "run/ coverage, binary runs only:        $(percent "$out/binary")"
echo "run/ coverage, both (the honest figure): $(percent "$out/inproc,$out/binary")"
go tool covdata textfmt -i="$out/inproc,$out/binary" -pkg="$run" -o "$out/cover.txt"
