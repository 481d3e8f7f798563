#!/usr/bin/env bash
# Runs every fuzz target briefly (FUZZTIME each, default 5s), so CI exercises the parsers,
# the SSE assembly, argument decoding, session restore and the NDJSON writer beyond their
# seed corpora. A finding fails the run and leaves the input under testdata/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-5s}
targets=(
  "./model FuzzStream"
  "./model FuzzParseArgs"
  "./model/anthropic FuzzAnthropicStream"
  "./session FuzzRestore"
  "./model/cassette FuzzReplay"
  "./output FuzzJSONSink"
  "./ralph FuzzMermaid"
  "./ralph FuzzD2"
  "./ralph FuzzChoice"
  "./tools FuzzToolArgs"
)
# Go 1.26's fuzz coordinator can report "context deadline exceeded" at the -fuzztime boundary
# without having found anything (golang/go#75804, fixed in Go 1.27). A finding always writes
# its input under testdata/fuzz/; a failure that wrote none is that race: run the target once
# more, and if the race strikes twice, say so and go on.
corpus_files() { { find "$1/testdata/fuzz/$2" -type f 2>/dev/null || true; } | sort; }
for t in "${targets[@]}"; do
  set -- $t
  for attempt in 1 2; do
    echo "fuzz $1 $2 ($fuzztime)"
    before=$(corpus_files "$1" "$2")
    if go test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" > /tmp/fuzz-smoke.log 2>&1; then
      break
    fi
    after=$(corpus_files "$1" "$2")
    if [ "$before" != "$after" ] || ! grep -q 'context deadline exceeded' /tmp/fuzz-smoke.log; then
      cat /tmp/fuzz-smoke.log; exit 1
    fi
    echo "  $2 stopped with Go's fuzztime race (golang/go#75804) and no failing input"
    [ "$attempt" = 2 ] && echo "  twice in a row: not counted as a finding"
  done
done
