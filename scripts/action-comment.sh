#!/usr/bin/env bash
# Posts the answer as a comment on the pull request or issue of the event, and on a re-run
# updates that same comment in place (sticky): the comment carries a hidden marker naming
# the workflow and job (or comment-key), and the newest comment with it is edited.
#
# Environment (set by action.yml; tests set them by hand):
#   RESULT_FILE, EXIT_CODE, SESSION_ID, INPUT_COST_USD, INPUT_TOKENS_IN, INPUT_TOKENS_OUT
#   INPUT_COMMENT_KEY       names the sticky comment (default: workflow/job)
#   GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_TOKEN, GITHUB_WORKFLOW,
#   GITHUB_JOB, GITHUB_SERVER_URL, GITHUB_RUN_ID
set -euo pipefail

warn() { echo "::warning title=kimi-run comment::$*" >&2; exit 0; }
command -v jq >/dev/null || warn "jq is needed to post the comment"

number=$(jq -r '.pull_request.number // .issue.number // empty' "${GITHUB_EVENT_PATH:-/dev/null}" 2>/dev/null || true)
[ -n "$number" ] || { echo "no pull request or issue in this event: no comment"; exit 0; }

key=${INPUT_COMMENT_KEY:-${GITHUB_WORKFLOW:-workflow}/${GITHUB_JOB:-job}}
marker="<!-- kimi-run:$(printf '%s' "$key" | tr -c 'A-Za-z0-9._/-' '-') -->"
api=${GITHUB_API_URL:-https://api.github.com}
repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set}
run_url="${GITHUB_SERVER_URL:-https://github.com}/$repo/actions/runs/${GITHUB_RUN_ID:-0}"

body=$(mktemp)
trap 'rm -f "$body" "$body.json"' EXIT
{
  echo "$marker"
  if [ "${EXIT_CODE:-1}" = 0 ] && [ -n "${RESULT_FILE:-}" ] && [ -s "$RESULT_FILE" ]; then
    # A comment holds at most 65536 characters.
    head -c 60000 "$RESULT_FILE"
  else
    echo "**kimi-run failed** (exit ${EXIT_CODE:-?}); see [the run]($run_url)."
  fi
  echo
  line="<sub>kimi-run · [run]($run_url)"
  [ -n "${INPUT_TOKENS_IN:-}" ] && line+=" · ${INPUT_TOKENS_IN} tokens in, ${INPUT_TOKENS_OUT:-0} out"
  [ -n "${INPUT_COST_USD:-}" ] && line+=" · \$${INPUT_COST_USD}"
  echo "$line</sub>"
} >"$body"
jq -Rs '{body: .}' "$body" >"$body.json"

curl_api() {
  curl --fail --silent --show-error --retry 3 -H "Authorization: Bearer ${GITHUB_TOKEN:-}" \
    -H "Accept: application/vnd.github+json" "$@"
}
# The newest comment with the marker (the list comes oldest first), among the first 100.
existing=$(curl_api "$api/repos/$repo/issues/$number/comments?per_page=100" |
  jq -r --arg m "$marker" '[.[] | select(.body | startswith($m))] | last | .id // empty') ||
  warn "cannot list the comments of #$number"
if [ -n "$existing" ]; then
  curl_api -X PATCH --data @"$body.json" "$api/repos/$repo/issues/comments/$existing" >/dev/null ||
    warn "cannot update comment $existing"
  echo "updated comment $existing on #$number"
  echo "comment-id=$existing" >>"${GITHUB_OUTPUT:-/dev/null}"
else
  id=$(curl_api -X POST --data @"$body.json" "$api/repos/$repo/issues/$number/comments" | jq -r '.id // empty') ||
    warn "cannot comment on #$number"
  echo "posted comment $id on #$number"
  echo "comment-id=$id" >>"${GITHUB_OUTPUT:-/dev/null}"
fi
