#!/usr/bin/env bash
# Runs kimi-run for the GitHub Action (action.yml) and reports: the answer in the step
# summary, the step outputs, and a directory to upload as the artifact (the session, the
# events, the stderr log, the answer). Exits with kimi-run's exit code.
#
# Environment (set by action.yml from its inputs; tests set them by hand):
#   KIMI_RUN_BIN           the binary (default: kimi-run on PATH)
#   INPUT_PROMPT, INPUT_PROMPT_FILE, INPUT_MODEL, INPUT_BASE_URL, INPUT_API_KEY,
#   INPUT_RALPH, INPUT_TIMEOUT, INPUT_OUTPUT_FORMAT (text|stream-json), INPUT_ARGS
#   RUNNER_TEMP, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_JOB, GITHUB_RUN_ATTEMPT
set -uo pipefail

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

# Extra arguments: one per line when the input has several lines, else split on spaces.
extra=()
if [ -n "${INPUT_ARGS:-}" ]; then
  if [[ $INPUT_ARGS == *$'\n'* ]]; then
    while IFS= read -r line; do
      line="${line#"${line%%[![:space:]]*}"}"
      line="${line%"${line##*[![:space:]]}"}"
      [ -n "$line" ] && extra+=("$line")
    done <<<"$INPUT_ARGS"
  else
    read -r -a extra <<<"$INPUT_ARGS"
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

if [ -n "${INPUT_API_KEY:-}" ]; then
  echo "::add-mask::$INPUT_API_KEY"
  export KIMI_API_KEY="$INPUT_API_KEY"
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

case "$code" in
  0) meaning="completed" ;;
  1) meaning="runtime error" ;;
  2) meaning="usage or configuration error" ;;
  3) meaning="step limit or loop guard" ;;
  4) meaning="Ralph/flow budget used up without STOP" ;;
  5) meaning="authentication refused by the provider" ;;
  6) meaning="token or cost budget used up" ;;
  7) meaning="the answer never matched --json-schema" ;;
  75) meaning="transient provider failure after every retry" ;;
  124) meaning="--timeout reached" ;;
  130 | 143) meaning="interrupted" ;;
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
} >>"${GITHUB_OUTPUT:-/dev/null}"

exit "$code"
