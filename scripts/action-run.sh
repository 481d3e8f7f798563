#!/usr/bin/env bash
# Runs kimi-run for the GitHub Action (action.yml) and reports: the answer in the step
# summary, the step outputs, and a directory to upload as the artifact (the session, the
# events, the stderr log, the answer). Exits with kimi-run's exit code.
#
# Environment (set by action.yml from its inputs; tests set them by hand):
#   KIMI_RUN_BIN           the binary (default: kimi-run on PATH)
#   INPUT_PROMPT, INPUT_PROMPT_FILE, INPUT_MODEL, INPUT_BASE_URL, INPUT_API_KEY,
#   INPUT_RALPH, INPUT_TIMEOUT, INPUT_OUTPUT_FORMAT (text|stream-json), INPUT_ARGS (a JSON
#   array, one argument per line, or one shell-quoted line)
#   RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_JOB, GITHUB_RUN_ATTEMPT
set -uo pipefail

# The key arrives in INPUT_API_KEY, in this shell's environment block, which any process of
# the runner's user can read (/proc/PID/environ) while the script runs: the commands of the
# run among them, with or without the sandbox. Start again without it, the key handed over
# on a pipe; kimi-run gets it in its own environment, which it overwrites once read.
if [ -n "${INPUT_API_KEY:-}" ]; then
  exec env -u INPUT_API_KEY KIMI_RUN_ACTION_KEY_FD=3 bash "$0" "$@" 3< <(printf '%s' "$INPUT_API_KEY")
fi
api_key=""
if [ -n "${KIMI_RUN_ACTION_KEY_FD:-}" ]; then
  IFS= read -r -d '' api_key <&3 || true
  exec 3<&-
  unset KIMI_RUN_ACTION_KEY_FD
fi

bin=${KIMI_RUN_BIN:-kimi-run}
format=${INPUT_OUTPUT_FORMAT:-text}
temp=${RUNNER_TEMP:-$(mktemp -d)}
mkdir -p "$temp"
out=$(mktemp -d "$temp/kimi-run.XXXXXX")
artifact="$out/artifact"
mkdir -p "$artifact"
sessions="$artifact/sessions"
result="$artifact/answer.md"
stderr_log="$artifact/stderr.log"
stdout_file="$out/stdout"
events=""
if [ "$format" = stream-json ]; then
  events="$artifact/events.ndjson"
  stdout_file=$events
fi

# Extra arguments: a JSON array of strings; or one per line when the input has several
# lines; or one line split as a shell would split it (quotes and backslashes, but no
# expansion: xargs reads the words, nothing is evaluated).
extra=()
args_in=${INPUT_ARGS:-}
args_trim="${args_in#"${args_in%%[![:space:]]*}"}"
if [ -n "$args_trim" ]; then
  if [[ $args_trim == \[* ]]; then
    command -v jq >/dev/null || { echo "::error title=kimi-run args::a JSON array needs jq on the runner" >&2; exit 2; }
    printf '%s' "$args_in" | jq -e 'type == "array" and all(.[]; type == "string")' >/dev/null 2>&1 ||
      { echo "::error title=kimi-run args::args starts with [ but is not a JSON array of strings" >&2; exit 2; }
    while IFS= read -r -d '' word; do extra+=("$word"); done < <(printf '%s' "$args_in" | jq -j '.[] | ., "\u0000"')
  elif [[ $args_in == *$'\n'* ]]; then
    while IFS= read -r line; do
      line="${line#"${line%%[![:space:]]*}"}"
      line="${line%"${line##*[![:space:]]}"}"
      [ -n "$line" ] && extra+=("$line")
    done <<<"$args_in"
  else
    words=$(printf '%s\n' "$args_in" | xargs printf '%s\0' 2>&1 >/dev/null) &&
      [ -z "$words" ] ||
      { echo "::error title=kimi-run args::cannot split args as a shell would: $words" >&2; exit 2; }
    while IFS= read -r -d '' word; do extra+=("$word"); done < <(printf '%s\n' "$args_in" | xargs printf '%s\0')
  fi
fi

# Where the user's own arguments already decide, theirs win.
user_sessions="" user_result="" no_session=false
for ((i = 0; i < ${#extra[@]}; i++)); do
  a=${extra[i]}
  next=""
  [ $((i + 1)) -lt ${#extra[@]} ] && next=${extra[i + 1]}
  case "$a" in
    --session-dir) user_sessions=$next ;;
    --session-dir=*) user_sessions=${a#*=} ;;
    -o | --output-last-message) user_result=$next ;;
    --output-last-message=*) user_result=${a#*=} ;;
    --no-session) no_session=true ;;
  esac
done

args=(--output-format "$format")
if [ -n "$user_result" ]; then
  result=$user_result
else
  args+=(-o "$result")
fi
if [ -n "$user_sessions" ]; then
  sessions=$user_sessions
elif [ "$no_session" = false ]; then
  args+=(--session-dir "$sessions")
fi
[ -n "${INPUT_PROMPT_FILE:-}" ] && args+=(--prompt-file "$INPUT_PROMPT_FILE")
[ -n "${INPUT_PROMPT:-}" ] && args+=(-p "$INPUT_PROMPT")
[ -n "${INPUT_MODEL:-}" ] && args+=(--model "$INPUT_MODEL")
[ -n "${INPUT_BASE_URL:-}" ] && args+=(--base-url "$INPUT_BASE_URL")
[ -n "${INPUT_RALPH:-}" ] && args+=(--ralph "$INPUT_RALPH")
[ -n "${INPUT_TIMEOUT:-}" ] && args+=(--timeout "$INPUT_TIMEOUT")
args+=(${extra[@]+"${extra[@]}"})

if [ -n "$api_key" ]; then
  echo "::add-mask::$api_key"
  export KIMI_API_KEY="$api_key"
fi

# stdout goes to the log and to its file, stderr to the log and to stderr.log, both live;
# the exit code travels through a file because it is not the pipeline's.
{
  {
    "$bin" "${args[@]}" 2>&1 1>&3 3>&- </dev/null
    echo $? >"$out/code"
  } | tee "$stderr_log" >&2
} 3>&1 | tee "$stdout_file"
code=$(cat "$out/code" 2>/dev/null || echo 1)

# The session id: the result event's in stream-json, else the newest session directory.
session_id=""
if [ -n "$events" ] && [ -s "$events" ]; then
  session_id=$(tail -n 1 "$events" | sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p')
fi
if [ -z "$session_id" ] && [ "$no_session" = false ] && [ -d "$sessions" ]; then
  for d in $(ls -1t "$sessions" 2>/dev/null); do
    if [ -f "$sessions/$d/context.jsonl" ]; then
      session_id=$d
      break
    fi
  done
fi
if [ -n "$session_id" ] && [ -n "$user_sessions" ] && [ -d "$user_sessions/$session_id" ]; then
  mkdir -p "$artifact/sessions"
  cp -R "$user_sessions/$session_id" "$artifact/sessions/"
fi
[ -f "$result" ] || result=""

# Tokens and cost: the result event's in stream-json, else the closing line on stderr.
tokens_in="" tokens_out="" tokens_cached="" cost="" structured=""
last=""
if [ -n "$events" ] && [ -s "$events" ]; then
  last=$(tail -n 1 "$events")
fi
if [[ $last == *'"type":"result"'* ]]; then
  num() { printf '%s' "$last" | sed -n "s/.*\"$1\":\([0-9.eE+-]*\).*/\1/p" | head -n 1; }
  tokens_in=$(num input_tokens) tokens_out=$(num output_tokens) tokens_cached=$(num cached_tokens) cost=$(num cost_usd)
  if command -v jq >/dev/null; then
    structured=$(printf '%s' "$last" | jq -c 'if has("structured_output") then .structured_output else empty end' 2>/dev/null)
  fi
elif [ -s "$stderr_log" ]; then
  kv() { grep -o "$1=[^ ]*" "$stderr_log" | tail -n 1 | cut -d= -f2 | tr -d '$'; }
  tokens_in=$(kv tokens_in) tokens_out=$(kv tokens_out) tokens_cached=$(kv tokens_cached) cost=$(kv cost)
  [ -n "$tokens_in" ] && [ -z "$tokens_cached" ] && tokens_cached=0
  # With --json-schema the answer file holds the JSON that matched it.
  # grep reads to the end (no -q): with pipefail, a grep that quit at the first match
  # could make printf's next write fail with SIGPIPE and the whole test false.
  if [ "$code" = 0 ] && [ -n "$result" ] && printf '%s\n' "${extra[@]+"${extra[@]}"}" | grep -E '^--(json|output)-schema' >/dev/null; then
    command -v jq >/dev/null && structured=$(jq -c . "$result" 2>/dev/null)
  fi
fi

case "$code" in
  0) meaning="completed" ;;
  1) meaning="runtime error" ;;
  2) meaning="usage or configuration error" ;;
  3) meaning="step limit or loop guard" ;;
  4) meaning="Ralph/flow budget used up without STOP" ;;
  5) meaning="authentication refused by the provider" ;;
  6) meaning="token, cost or tool-call budget used up" ;;
  7) meaning="the answer never matched --json-schema" ;;
  8) meaning="the provider stopped the answer (finish_reason such as content_filter)" ;;
  9) meaning="a tool call was refused (--fail-on-denial)" ;;
  75) meaning="transient provider failure after every retry" ;;
  124) meaning="--timeout reached" ;;
  129 | 130 | 131 | 143) meaning="interrupted" ;;
  *) meaning="unexpected exit" ;;
esac

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  {
    if [ "$code" = 0 ]; then
      echo "### kimi-run: $meaning"
    else
      echo "### kimi-run failed: $meaning (exit $code)"
    fi
    echo
    if [ -n "$result" ] && [ -s "$result" ]; then
      # The summary holds at most 1 MiB per step.
      head -c 900000 "$result"
      echo
    else
      echo "_No answer._"
    fi
    echo
    echo "<details><summary>Run details</summary>"
    echo
    echo "- exit code: \`$code\`"
    [ -n "$session_id" ] && echo "- session: \`$session_id\`"
    echo "- output format: \`$format\`"
    [ -n "$tokens_in" ] && echo "- tokens: $tokens_in in ($tokens_cached cached), $tokens_out out"
    [ -n "$cost" ] && echo "- cost: \$$cost"
    if [ "$code" != 0 ] && [ -s "$stderr_log" ]; then
      echo
      echo '```'
      tail -n 20 "$stderr_log"
      echo '```'
    fi
    echo
    echo "</details>"
  } >>"$GITHUB_STEP_SUMMARY"
fi

# Unique per invocation: a job may run the action twice on one session (a retry).
name="kimi-run-${GITHUB_JOB:-job}-${session_id:-none}-${GITHUB_RUN_ATTEMPT:-1}-${out##*.}"
name=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '-')
{
  echo "exit-code=$code"
  echo "session-id=$session_id"
  echo "result-file=$result"
  echo "events-file=$events"
  echo "artifact-dir=$artifact"
  echo "artifact-name=$name"
  echo "input-tokens=$tokens_in"
  echo "output-tokens=$tokens_out"
  echo "cached-tokens=$tokens_cached"
  echo "cost-usd=$cost"
  # Compact JSON is one line; the delimiter form keeps any value safe all the same.
  delim="kimi-run-structured-$RANDOM$RANDOM"
  printf 'structured-output<<%s\n%s\n%s\n' "$delim" "$structured" "$delim"
} >>"${GITHUB_OUTPUT:-/dev/null}"

exit "$code"
