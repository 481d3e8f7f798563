#!/usr/bin/env bash
# Decides whether the GitHub Action may run for the event that triggered it (action.yml's
# first step). A run started by a comment or an issue can be triggered by anyone who can
# comment; the agent then runs with the workflow's secrets and token, so only people with
# write access to the repository, or the users and bots named in allowed-users, may start
# one. Other events (push, pull_request, schedule, workflow_dispatch, ...) are already
# limited by GitHub to people who can write, and pass.
#
# Environment (set by action.yml; tests set them by hand):
#   GITHUB_EVENT_NAME, GITHUB_ACTOR, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_TOKEN
#   INPUT_ALLOWED_USERS  comma- or newline-separated logins (bots as name[bot]); * allows all
set -euo pipefail
set -f # allowed-users may hold a literal *

fail() { echo "::error title=kimi-run not allowed::$*" >&2; exit 1; }

case "${GITHUB_EVENT_NAME:-}" in
  issue_comment | pull_request_review_comment | pull_request_review | discussion_comment | issues | discussion | pull_request_target) ;;
  *) echo "event ${GITHUB_EVENT_NAME:-none}: no gate needed"; exit 0 ;;
esac

actor=${GITHUB_ACTOR:?GITHUB_ACTOR is not set}
allowed=$(printf '%s' "${INPUT_ALLOWED_USERS:-}" | tr ',\n' '  ')
for u in $allowed; do
  if [ "$u" = "*" ] || [ "$(printf '%s' "$u" | tr '[:upper:]' '[:lower:]')" = "$(printf '%s' "$actor" | tr '[:upper:]' '[:lower:]')" ]; then
    echo "$actor is in allowed-users"
    exit 0
  fi
done
case "$actor" in
  *"[bot]") fail "$actor is a bot and not in allowed-users" ;;
esac

api=${GITHUB_API_URL:-https://api.github.com}
json=$(curl --fail --silent --show-error --retry 3 \
  -H "Authorization: Bearer ${GITHUB_TOKEN:-}" -H "Accept: application/vnd.github+json" \
  "$api/repos/$GITHUB_REPOSITORY/collaborators/$actor/permission") ||
  fail "cannot read $actor's permission on $GITHUB_REPOSITORY"
permission=$(printf '%s' "$json" | sed -n 's/.*"permission"[[:space:]]*:[[:space:]]*"\([a-z]*\)".*/\1/p' | head -n 1)
case "$permission" in
  admin | maintain | write) echo "$actor has $permission access"; exit 0 ;;
esac
fail "$actor has ${permission:-no} access to $GITHUB_REPOSITORY; write access, or a place in allowed-users, is needed to start kimi-run from a ${GITHUB_EVENT_NAME}"
