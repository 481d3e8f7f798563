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
CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$version" -o "$bin" .
rm -rf "$out/completions" "$out/manpages"
mkdir -p "$out/completions" "$out/manpages"
"$bin" completion bash > "$out/completions/kimi-run.bash"
"$bin" completion zsh > "$out/completions/_kimi-run"
"$bin" completion fish > "$out/completions/kimi-run.fish"
"$bin" --man-page > "$out/manpages/kimi-run.1"
