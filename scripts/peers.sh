#!/usr/bin/env bash
# peers.sh: time `hello` for kimi-run and for its peers (crush, codex) against one local
# zero-latency model server, the figure of issue 31 ("hello is at least 10x faster than the
# fastest peer"). docs/performance.md has what it printed.
#
# Usage: scripts/peers.sh                        (N=9 rounds)
#        N=21 PEERS=codex scripts/peers.sh
#        PEERS=none N=1 scripts/peers.sh         (kimi-run alone: no npm, no network)
#
# Settings (environment):
#   N              timed rounds; each case runs once a round (9)
#   PEERS          the peers to time, space separated: crush, codex, or none ("crush codex")
#   PEERS_CACHE    where the peers are installed, outside the repository
#                  (${XDG_CACHE_HOME:-$HOME/.cache}/kimi-run-peers)
#   CRUSH_VERSION  the npm package @charmland/crush to install (0.92.0: the registry has no
#                  0.90.x, the version issue 31 measured)
#   CODEX_VERSION  the npm package @openai/codex to install (0.169.0)
#   CRUSH_BIN, CODEX_BIN  a binary of the peer to use instead of installing one
#   RUN_TIMEOUT    seconds one run may take before it is killed and counted as failed (60)
#
# The peers are installed with npm from its registry, once, each into a folder of its own
# under PEERS_CACHE (npm's own cache goes there too); nothing of theirs is in the
# repository. A peer that cannot be installed, or that does not answer `hello` through the
# local server, is reported on stderr and left out; the others are still timed. Every step
# is bounded by `timeout`. crush's npm package downloads its binary from the project's
# release page when installed, so it needs that site to be reachable; codex's binary comes
# inside its npm packages. The peers' native binaries are timed, not npm's Node.js
# launchers in front of them (which would add Node.js's own start to each run).
#
# kimi-run is built as releases are (CGO_ENABLED=0, -trimpath, -s -w). The server is
# scripts/benchserver: chat completions for kimi-run and crush, the Responses API for codex
# (the only protocol codex 0.169 speaks), each streaming the same one-sentence answer. Every
# run gets stdin from /dev/null, an empty work dir, and a temporary HOME and XDG folders in
# which each tool finds a configuration that points it at the server with a dummy key and
# the model "bench-model": no real configuration or credential is read, and nothing is
# written outside the temporary folder. The cases: kimi-run -p hello with a session (the
# default) and with --no-session; `crush run -q` and `codex exec --skip-git-repo-check`,
# each in two configurations: "quiet" turns off what the peer does at start beside the task
# where it has a setting for it (network look-ups, telemetry, update checks, language
# servers), "defaults" sets only what it takes to reach the server; and the floor,
# `timeout` starting /bin/true, which every figure includes.
#
# Each case is first run once, untimed, and must exit 0 with the answer on stdout (this
# also creates what a peer keeps between runs, as it would have for a user); the requests
# the server saw during that run are listed. Then come N rounds; each runs every case
# once, in an order reversed every other round, so that a change in the machine's load
# favours none. Wall time is taken with bash's $EPOCHREALTIME. The table gives each case's
# median and minimum; then the ratio of the fastest peer case's median to kimi-run's, for
# both kimi-run cases (and the same against the peers' defaults alone), and the load
# average before and after.
set -euo pipefail
cd "$(dirname "$0")/.."
COMMIT="$(git rev-parse --short HEAD 2>/dev/null || echo '?')"

N="${N:-9}"
PEERS="${PEERS:-crush codex}"
PEERS_CACHE="${PEERS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kimi-run-peers}"
CRUSH_VERSION="${CRUSH_VERSION:-0.92.0}"
CODEX_VERSION="${CODEX_VERSION:-0.169.0}"
RUN_TIMEOUT="${RUN_TIMEOUT:-60}"
# The answer benchserver streams ends with this; a run whose stdout lacks it did not
# deliver the reply.
ANSWER="nothing else needs changing."

if ! [[ "$N" =~ ^[1-9][0-9]*$ ]]; then
	echo "peers.sh: N must be a positive whole number, not \"$N\"" >&2
	exit 2
fi
for p in $PEERS; do
	case "$p" in
	crush | codex | none) ;;
	*)
		echo "peers.sh: unknown peer \"$p\" (PEERS takes crush, codex or none)" >&2
		exit 2
		;;
	esac
done

# shellcheck source=scripts/benchlib.sh
. scripts/benchlib.sh

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'; }
LOAD_BEFORE="$(loadavg)"

# --- the peers, installed before HOME is replaced so that npm reads the user's settings

# npm_install PACKAGE VERSION DIR installs PACKAGE@VERSION into DIR with npm, unless a
# finished install is there already; it builds in a folder of its own and renames that into
# place, so a broken install is never taken for a finished one.
npm_install() {
	local pkg=$1 version=$2 dir=$3
	[ -f "$dir/.installed" ] && return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "peers.sh: npm is not installed, so $pkg cannot be" >&2
		return 1
	fi
	echo "installing $pkg@$version into $dir..." >&2
	mkdir -p "$PEERS_CACHE"
	local stage
	stage="$(mktemp -d "$PEERS_CACHE/.install.XXXXXX")"
	if ! npm_config_cache="$PEERS_CACHE/npm-cache" npm_config_update_notifier=false \
		timeout 600 npm install --prefix "$stage" --no-audit --no-fund --no-save \
		--no-package-lock --loglevel=error "$pkg@$version" >"$stage.log" 2>&1; then
		echo "peers.sh: could not install $pkg@$version; npm said:" >&2
		grep -v '^npm error *$' "$stage.log" | tail -n 6 | sed 's/^/    /' >&2
		rm -rf "$stage" "$stage.log"
		return 1
	fi
	rm -f "$stage.log"
	touch "$stage/.installed"
	rm -rf "$dir"
	mv "$stage" "$dir"
}

# native_binary DIR PATTERN prints the first executable file under DIR whose path matches
# PATTERN (a find -path pattern).
native_binary() {
	find "$1" -path "$2" -type f -perm -u+x 2>/dev/null | head -n 1
}

CRUSH="" CODEX=""
for p in $PEERS; do
	case "$p" in
	crush)
		if [ -n "${CRUSH_BIN:-}" ]; then
			CRUSH="$CRUSH_BIN"
		elif npm_install @charmland/crush "$CRUSH_VERSION" "$PEERS_CACHE/crush-$CRUSH_VERSION"; then
			CRUSH="$(native_binary "$PEERS_CACHE/crush-$CRUSH_VERSION" '*/@charmland/crush/bin/crush')"
			[ -n "$CRUSH" ] || echo "peers.sh: crush's npm package holds no crush binary" >&2
		fi
		;;
	codex)
		if [ -n "${CODEX_BIN:-}" ]; then
			CODEX="$CODEX_BIN"
		elif npm_install @openai/codex "$CODEX_VERSION" "$PEERS_CACHE/codex-$CODEX_VERSION"; then
			CODEX="$(native_binary "$PEERS_CACHE/codex-$CODEX_VERSION" '*/vendor/*/bin/codex')"
			[ -n "$CODEX" ] || echo "peers.sh: codex's npm packages hold no codex binary for this machine" >&2
		fi
		;;
	esac
done

# --- kimi-run and the server

echo "building kimi-run (release flags) and benchserver..." >&2
CGO_ENABLED=0 timeout 900 go build -trimpath -ldflags "-s -w" -o "$WORK/kimi-run" .
start_benchserver -log "$WORK/requests" -lifetime 60m

# --- a temporary home in which each tool is pointed at the server

export HOME="$WORK/home" XDG_CONFIG_HOME="$WORK/home/.config" XDG_DATA_HOME="$WORK/home/.local/share"
export XDG_STATE_HOME="$WORK/home/.local/state" XDG_CACHE_HOME="$WORK/home/.cache"
export TMPDIR="$WORK/tmp" NO_COLOR=1
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME" "$TMPDIR" "$WORK/work"
# Whatever the caller's environment holds for these tools stays out of the runs.
unset KIMI_BASE_URL OPENAI_API_KEY OPENAI_BASE_URL ANTHROPIC_API_KEY CODEX_API_KEY DO_NOT_TRACK
export KIMI_API_KEY=sk-peers-not-a-real-key KIMI_MODEL_NAME=bench-model BENCH_API_KEY=sk-peers-not-a-real-key

# Each peer runs twice a round, with two configurations in folders of their own: "quiet",
# which turns off what a peer does at start beside the task (network look-ups, telemetry,
# update checks, language servers) where it has a setting for it, and "defaults", which
# sets only what it takes to reach the server. The ratio is taken against the faster.

# crush_config DIR OPTIONS writes DIR/crush/crush.json: a custom OpenAI-compatible provider
# (openai-compat: chat completions to any server; "openai" is for OpenAI's own API) whose
# one model takes both roles, and the given options object.
crush_config() {
	mkdir -p "$1/crush"
	cat >"$1/crush/crush.json" <<EOF
{
  "providers": {
    "bench": {
      "name": "bench",
      "type": "openai-compat",
      "base_url": "$BASE",
      "api_key": "\$BENCH_API_KEY",
      "models": [
        {
          "id": "bench-model",
          "name": "bench-model",
          "cost_per_1m_in": 0,
          "cost_per_1m_out": 0,
          "cost_per_1m_in_cached": 0,
          "cost_per_1m_out_cached": 0,
          "context_window": 128000,
          "default_max_tokens": 4096,
          "can_reason": false,
          "supports_attachments": false
        }
      ]
    }
  },
  "models": {
    "large": { "provider": "bench", "model": "bench-model" },
    "small": { "provider": "bench", "model": "bench-model" }
  },
  "options": $2
}
EOF
}
# Quiet: no provider catalogue (neither fetched nor the built-in one), no metrics, no
# language servers set up, its data outside the work dir. Defaults: data in ./.crush.
crush_config "$WORK/crush-quiet" "{ \"disable_provider_auto_update\": true, \"disable_default_providers\": true,
    \"disable_metrics\": true, \"auto_lsp\": false, \"data_directory\": \"$WORK/crush-data\" }"
crush_config "$WORK/crush-defaults" "{}"

# codex_config DIR LINES writes DIR/config.toml: a provider of its own speaking the
# Responses API, without retries (a failure shows at once; a run that succeeds makes none),
# after the given top-level lines.
codex_config() {
	mkdir -p "$1"
	cat >"$1/config.toml" <<EOF
model = "bench-model"
model_provider = "bench"
$2

[model_providers.bench]
name = "bench"
base_url = "$BASE"
env_key = "BENCH_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
EOF
}
codex_config "$WORK/codex-quiet" "check_for_update_on_startup = false
analytics.enabled = false"
codex_config "$WORK/codex-defaults" ""

# --- the cases, as name, version and command

NAMES=() VERSIONS=() CMDS=()
add() { # add NAME VERSION ARGS... registers one case
	NAMES+=("$1")
	VERSIONS+=("$2")
	shift 2
	CMDS+=("$(printf '%q ' "$@")")
}
# version_of BIN ARGS... prints the first line a --version prints, or "?".
version_of() { timeout 20 "$@" 2>/dev/null </dev/null | head -n 1 || echo "?"; }
# is_peer NAME: whether the case is one of a peer's.
is_peer() { case "$1" in crush* | codex*) return 0 ;; *) return 1 ;; esac }

cd "$WORK/work"
KIMI_VERSION="$(version_of "$WORK/kimi-run" --version) at $COMMIT"
add "kimi-run" "$KIMI_VERSION" "$WORK/kimi-run" -p hello --base-url "$BASE"
add "kimi-run --no-session" "$KIMI_VERSION" "$WORK/kimi-run" -p hello --base-url "$BASE" --no-session
# Each peer's configuration folder is chosen through env, for both configurations alike.
if [ -n "$CRUSH" ]; then
	v="$(version_of "$CRUSH" --version)"
	for c in quiet defaults; do
		add "crush, $c" "$v" env XDG_CONFIG_HOME="$WORK/crush-$c" "$CRUSH" run -q --model bench/bench-model hello
	done
fi
if [ -n "$CODEX" ]; then
	v="$(version_of "$CODEX" --version)"
	for c in quiet defaults; do
		add "codex, $c" "$v" env CODEX_HOME="$WORK/codex-$c" "$CODEX" exec --skip-git-repo-check hello
	done
fi
add "floor: timeout true" "-" /bin/true

# Check every case once: exit 0, and the answer on stdout. A peer that fails is left out;
# kimi-run failing ends the script. What each case asked of the server is kept for the
# report.
KEEP=() LEFT_OUT=()
declare -A ASKED
for i in "${!NAMES[@]}"; do
	out="$WORK/check.out" err="$WORK/check.err"
	rc=0
	before=$(wc -l <"$WORK/requests" 2>/dev/null || echo 0)
	eval "timeout -k 5 $RUN_TIMEOUT ${CMDS[$i]}" </dev/null >"$out" 2>"$err" || rc=$?
	ASKED[$i]=$(tail -n +"$((before + 1))" "$WORK/requests" 2>/dev/null | sort | uniq -c |
		awk '{ printf "%s%s %s x%d", sep, $2, $3, $1; sep = ", " }')
	ok=1
	if [ "$rc" != 0 ]; then
		ok=""
		why="it exited $rc"
		[ "$rc" = 124 ] && why="it did not finish within ${RUN_TIMEOUT}s"
	elif [ "${NAMES[$i]}" != "floor: timeout true" ] && ! grep -qF "$ANSWER" "$out"; then
		ok=""
		why="the answer did not reach its stdout"
	fi
	if [ -n "$ok" ]; then
		KEEP+=("$i")
		continue
	fi
	{
		echo "peers.sh: ${NAMES[$i]} failed against the local server: $why"
		echo "  stdout:" && tail -n 10 "$out" | sed 's/^/    /'
		echo "  stderr:" && tail -n 20 "$err" | sed 's/^/    /'
	} >&2
	if ! is_peer "${NAMES[$i]}"; then exit 1; fi
	echo "peers.sh: leaving ${NAMES[$i]} out" >&2
	LEFT_OUT+=("${NAMES[$i]}")
done

# --- N rounds, each running every case once

for i in "${!NAMES[@]}"; do : >"$WORK/times.$i"; done

for ((r = 0; r < N; r++)); do
	order=("${KEEP[@]}")
	if ((r % 2 == 1)); then
		order=()
		for ((j = ${#KEEP[@]} - 1; j >= 0; j--)); do order+=("${KEEP[j]}"); done
	fi
	for i in "${order[@]}"; do
		s=$EPOCHREALTIME
		if eval "timeout -k 5 $RUN_TIMEOUT ${CMDS[$i]}" </dev/null >/dev/null 2>&1; then
			e=$EPOCHREALTIME
			echo "$s $e" | awk '{ printf "%.3f\n", ($2 - $1) * 1000 }' >>"$WORK/times.$i"
		else
			echo "peers.sh: a timed run of ${NAMES[$i]} failed; it is not counted" >&2
		fi
	done
done
LOAD_AFTER="$(loadavg)"

# stats reads times in ms, one a line, and prints "median min count".
stats() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "- - 0"; exit }
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.1f %.1f %d\n", m, v[1], NR }'
}

echo
echo "hello against one local zero-latency server: $(nproc) CPUs, $N rounds, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "load average before: $LOAD_BEFORE"
echo
printf '%-22s %-26s %10s %8s %5s\n' case version median_ms min_ms runs
declare -A MED
for i in "${!NAMES[@]}"; do
	read -r med lo count < <(stats <"$WORK/times.$i")
	MED[${NAMES[$i]}]=$med
	printf '%-22s %-26s %10s %8s %5s\n' "${NAMES[$i]}" "${VERSIONS[$i]:0:26}" "$med" "$lo" "$count"
done
echo
echo "what one run asked of the server (in its check):"
for i in "${KEEP[@]}"; do
	printf '  %-22s %s\n' "${NAMES[$i]}" "${ASKED[$i]:-nothing}"
done
echo
# fastest PATTERN prints "name median" of the peer case with the lowest median among those
# whose name matches the glob PATTERN, or nothing.
fastest() {
	local best="" best_ms="" name m
	for name in "${NAMES[@]}"; do
		is_peer "$name" || continue
		# shellcheck disable=SC2053 # $1 is a glob on purpose
		[[ "$name" == $1 ]] || continue
		m="${MED[$name]:-}"
		if [ -z "$m" ] || [ "$m" = "-" ]; then continue; fi
		if [ -z "$best" ] || awk -v a="$m" -v b="$best_ms" 'BEGIN { exit !(a < b) }'; then
			best=$name best_ms=$m
		fi
	done
	[ -z "$best" ] || echo "$best_ms $best"
}
ratios() { # ratios LABEL "MS NAME": the peer's median over each kimi-run case's
	local ms=${2%% *} name=${2#* } k
	for k in "kimi-run" "kimi-run --no-session"; do
		awk -v l="$1" -v p="$name" -v pm="$ms" -v k="$k" -v km="${MED[$k]}" \
			'BEGIN { printf "%s (%s) / %s: %.1fx\n", l, p, k, pm / km }'
	done
}
# A peer asked for but not timed is named, so that "fastest" is read for what it is.
for p in $PEERS; do
	case "$p" in
	crush) [ -n "$CRUSH" ] || LEFT_OUT+=("crush (not installed)") ;;
	codex) [ -n "$CODEX" ] || LEFT_OUT+=("codex (not installed)") ;;
	esac
done
if [ "${#LEFT_OUT[@]}" -gt 0 ]; then
	printf 'not timed (stderr says why): %s\n' "$(printf '%s; ' "${LEFT_OUT[@]}" | sed 's/; $//')"
fi
best="$(fastest '*')"
if [ -z "$best" ]; then
	echo "no peer was timed, so there is no ratio"
else
	ratios "fastest peer" "$best"
	best="$(fastest '*, defaults')"
	[ -z "$best" ] || ratios "fastest peer with its defaults" "$best"
fi
echo "load average after: $LOAD_AFTER"
