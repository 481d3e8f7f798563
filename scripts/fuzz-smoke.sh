#!/usr/bin/env bash
# Runs every fuzz target briefly (FUZZTIME each, default 5s), so CI exercises the parsers,
# the SSE assembly, argument decoding, session restore and the NDJSON writer beyond their
# seed corpora. A finding fails the run and leaves the input under testdata/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
targets=(
  "./agent FuzzStream"
  "./agent FuzzParseArgs"
  "./agent FuzzRestore"
  "./agent/cassette FuzzReplay"
  "./output FuzzJSONSink"
  "./ralph FuzzMermaid"
  "./ralph FuzzD2"
  "./ralph FuzzChoice"
  "./tools FuzzToolArgs"
)
for t in "${targets[@]}"; do
  set -- $t
  echo "fuzz $1 $2 ($fuzztime)"
  go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" > /tmp/fuzz-smoke.log 2>&1 || {
    cat /tmp/fuzz-smoke.log; exit 1; }
done
