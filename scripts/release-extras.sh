#!/bin/sh
# goreleaser's before hook: the shell completions and the man page that every release
# archive ships, written by a build of this checkout from its own flag model.
# Usage: scripts/release-extras.sh VERSION [OUTDIR]   (OUTDIR: the checkout by default)
set -eu
cd "$(dirname "$0")/.."
version=${1:-dev}
out=${2:-.}
bin=$(mktemp -d)/kimi-run
trap 'rm -rf "$(dirname "$bin")"' EXIT
# The man page's date is the commit's (SOURCE_DATE_EPOCH when set, as goreleaser and
# reproducible builds set it), so the same commit gives the same page.
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  day=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F 2>/dev/null || date -u -r "$SOURCE_DATE_EPOCH" +%F)
else
  day=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
fi
commit=$(git rev-parse --short=7 HEAD 2>/dev/null || echo none)
# Plain go build flags: this binary only writes text, and it shares the build cache with
# `go build` and the tests (release flags such as -trimpath or CGO_ENABLED=0 would compile
# every package again).
go build -ldflags "-X main.version=$version -X main.commit=$commit -X main.date=$day" -o "$bin" .
rm -rf "$out/completions" "$out/manpages"
mkdir -p "$out/completions" "$out/manpages"
"$bin" completion bash > "$out/completions/kimi-run.bash"
"$bin" completion zsh > "$out/completions/_kimi-run"
"$bin" completion fish > "$out/completions/kimi-run.fish"
"$bin" --man-page > "$out/manpages/kimi-run.1"
