#!/usr/bin/env bash
# Installs kimi-run for the GitHub Action (action.yml): the released archive for the
# runner's OS and architecture, verified against the release's checksums.txt, or a build
# of the action's own source. A release already in the runner's tool cache is used as it
# is, and a downloaded one is added to it. Writes the binary's path as the step output
# "bin" and what its --version says as "version".
#
# Environment (set by action.yml; tests set them by hand):
#   KIMI_RUN_VERSION            release tag (v1.2.0) or "latest"
#   KIMI_RUN_BUILD_FROM_SOURCE  "true" builds $KIMI_RUN_SOURCE with go instead
#   KIMI_RUN_REPOSITORY         owner/name of the releases (default kimi-run/kimi-run)
#   KIMI_RUN_SOURCE             the action's checkout (for building)
#   GITHUB_TOKEN                optional, for the API call that resolves "latest"
#   RUNNER_OS, RUNNER_ARCH      Linux|macOS|Windows, X64|ARM64 (uname when unset)
#   RUNNER_TEMP, GITHUB_OUTPUT  as on a runner
#   KIMI_RUN_FALLBACK           "true": when the release cannot be had, warn and write an
#                               empty "bin" (action.yml then builds from source) instead of
#                               failing
#   RUNNER_TOOL_CACHE           the runner's tool cache (kimi-run/VERSION/ARCH/)
#   KIMI_RUN_GITHUB_URL, KIMI_RUN_API_URL  override https://github.com and
#                               https://api.github.com (tests serve a fake release)
#   KIMI_RUN_CURL_RETRIES       how often curl retries a failed download (default 3; the
#                               tests of an unreachable host set 0 rather than wait 7 s a call)
set -euo pipefail

fail() { echo "::error title=kimi-run install::$*" >&2; exit 1; }
# unreachable: the release could not be had; with the fallback on, say so and let the
# next step build from source.
unreachable() {
  if [ "${KIMI_RUN_FALLBACK:-false}" = true ]; then
    echo "::warning title=kimi-run install::$*; building from source instead" >&2
    output bin ""
    exit 0
  fi
  fail "$@"
}

version=${KIMI_RUN_VERSION:-latest}
repo=${KIMI_RUN_REPOSITORY:-kimi-run/kimi-run}
github=${KIMI_RUN_GITHUB_URL:-https://github.com}
api=${KIMI_RUN_API_URL:-https://api.github.com}
temp=${RUNNER_TEMP:-$(mktemp -d)}
dest="$temp/kimi-run-bin"
mkdir -p "$dest"

case "${RUNNER_OS:-$(uname -s)}" in
  Linux | linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) fail "unsupported runner OS ${RUNNER_OS:-$(uname -s)}" ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | arm64 | aarch64) arch=arm64 ;;
  *) fail "unsupported runner architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
esac
exe=kimi-run
[ "$os" = windows ] && exe=kimi-run.exe

output() { [ -n "${GITHUB_OUTPUT:-}" ] && echo "$1=$2" >>"$GITHUB_OUTPUT"; echo "$1=$2"; }
# installed: report the binary and its version, as outputs and in the log.
installed() {
  local v
  v=$("$1" --version) || fail "$1 does not run"
  output bin "$1"
  output version "${v#kimi-run }"
  echo "installed $v ($2)"
  exit 0
}
cache_dir() { echo "${RUNNER_TOOL_CACHE:-}/kimi-run/${1#v}/$arch"; }

if [ "${KIMI_RUN_BUILD_FROM_SOURCE:-false}" = true ]; then
  src=${KIMI_RUN_SOURCE:?KIMI_RUN_SOURCE must name the source to build}
  command -v go >/dev/null || fail "build-from-source needs Go on PATH"
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$dest/$exe" .) || fail "go build failed in $src"
  installed "$dest/$exe" "built from $src"
fi

# A concrete version already in the tool cache needs no network at all.
if [ "$version" != latest ] && [ -n "${RUNNER_TOOL_CACHE:-}" ]; then
  v=$version
  case "$v" in v*) ;; *) v="v$v" ;; esac
  [ -x "$(cache_dir "$v")/$exe" ] && installed "$(cache_dir "$v")/$exe" "from the runner's tool cache"
fi

curl_args=(--fail --silent --show-error --location --retry "${KIMI_RUN_CURL_RETRIES:-3}" --retry-connrefused)
if [ "$version" = latest ]; then
  auth=()
  [ -n "${GITHUB_TOKEN:-}" ] && auth=(-H "Authorization: Bearer $GITHUB_TOKEN")
  json=$(curl "${curl_args[@]}" ${auth[@]+"${auth[@]}"} -H "Accept: application/vnd.github+json" "$api/repos/$repo/releases/latest") ||
    unreachable "cannot find the latest release of $repo"
  version=$(printf '%s' "$json" | sed -n 's/.*"tag_name"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' | head -n 1)
  [ -n "$version" ] || fail "the latest release of $repo has no tag"
fi
case "$version" in
  v*) ;;
  *) version="v$version" ;;
esac

# goreleaser's names (.goreleaser.yaml): kimi-run_<version without v>_<os>_<arch>.tar.gz, zip on Windows.
ext=tar.gz
[ "$os" = windows ] && ext=zip
archive="kimi-run_${version#v}_${os}_${arch}.$ext"
base="$github/$repo/releases/download/$version"
work=$(mktemp -d "$temp/kimi-run-download.XXXXXX")
curl "${curl_args[@]}" -o "$work/$archive" "$base/$archive" || unreachable "cannot download $base/$archive"
curl "${curl_args[@]}" -o "$work/checksums.txt" "$base/checksums.txt" || unreachable "cannot download $base/checksums.txt"

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$work/checksums.txt")
[ -n "$want" ] || fail "checksums.txt of $version does not list $archive"
if command -v sha256sum >/dev/null; then
  got=$(sha256sum "$work/$archive" | awk '{ print $1 }')
else
  got=$(shasum -a 256 "$work/$archive" | awk '{ print $1 }')
fi
[ "$got" = "$want" ] || fail "checksum mismatch for $archive: got $got, checksums.txt says $want"

if [ "$ext" = zip ]; then
  unzip -q -o "$work/$archive" "$exe" -d "$dest" || fail "cannot unpack $archive"
else
  tar -xzf "$work/$archive" -C "$dest" "$exe" || fail "cannot unpack $archive"
fi
chmod +x "$dest/$exe"
rm -rf "$work"
if [ -n "${RUNNER_TOOL_CACHE:-}" ] && mkdir -p "$(cache_dir "$version")" 2>/dev/null &&
  cp "$dest/$exe" "$(cache_dir "$version")/$exe.tmp" && mv "$(cache_dir "$version")/$exe.tmp" "$(cache_dir "$version")/$exe"; then
  touch "$(cache_dir "$version").complete" 2>/dev/null || true
fi
installed "$dest/$exe" "release $version, checksum verified"
