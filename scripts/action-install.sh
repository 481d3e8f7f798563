#!/usr/bin/env bash
# Installs kimi-run for the GitHub Action (action.yml): the released archive for the
# runner's OS and architecture, verified against the release's checksums.txt, or a build
# of the action's own source. Writes the binary's path as the step output "bin".
#
# Environment (set by action.yml; tests set them by hand):
#   KIMI_RUN_VERSION            release tag (v1.2.0) or "latest"
#   KIMI_RUN_BUILD_FROM_SOURCE  "true" builds $KIMI_RUN_SOURCE with go instead
#   KIMI_RUN_REPOSITORY         owner/name of the releases (default kimi-run/kimi-run)
#   KIMI_RUN_SOURCE             the action's checkout (for building)
#   GITHUB_TOKEN                optional, for the API call that resolves "latest"
#   RUNNER_OS, RUNNER_ARCH      Linux|macOS|Windows, X64|ARM64 (uname when unset)
#   RUNNER_TEMP, GITHUB_OUTPUT  as on a runner
#   KIMI_RUN_GITHUB_URL, KIMI_RUN_API_URL  override https://github.com and
#                               https://api.github.com (tests serve a fake release)
set -euo pipefail

fail() { echo "::error title=kimi-run install::$*" >&2; exit 1; }

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

if [ "${KIMI_RUN_BUILD_FROM_SOURCE:-false}" = true ]; then
  src=${KIMI_RUN_SOURCE:?KIMI_RUN_SOURCE must name the source to build}
  command -v go >/dev/null || fail "build-from-source needs Go on PATH"
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$dest/$exe" .) || fail "go build failed in $src"
  output bin "$dest/$exe"
  "$dest/$exe" --version
  exit 0
fi

curl_args=(--fail --silent --show-error --location --retry 3 --retry-connrefused)
if [ "$version" = latest ]; then
  auth=()
  [ -n "${GITHUB_TOKEN:-}" ] && auth=(-H "Authorization: Bearer $GITHUB_TOKEN")
  json=$(curl "${curl_args[@]}" ${auth[@]+"${auth[@]}"} -H "Accept: application/vnd.github+json" "$api/repos/$repo/releases/latest") ||
    fail "cannot find the latest release of $repo"
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
curl "${curl_args[@]}" -o "$work/$archive" "$base/$archive" || fail "cannot download $base/$archive"
curl "${curl_args[@]}" -o "$work/checksums.txt" "$base/checksums.txt" || fail "cannot download $base/checksums.txt"

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
output bin "$dest/$exe"
"$dest/$exe" --version
