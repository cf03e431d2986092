#!/usr/bin/env bash
# Testing leaves the checkout as it found it: `check_clean.sh save` records `git status --porcelain`,
# `check_clean.sh check` fails, listing them, if files changed since (generated output belongs in
# ignored folders: artifacts/, build/, .cache/). Outside a git checkout there is nothing to compare.
set -euo pipefail
cd "$(dirname "$0")/.."
SNAPSHOT=artifacts/git-status-before-test
git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "check_clean: not a git checkout: not checked"; exit 0; }
case "${1:-}" in
  save) mkdir -p artifacts && git status --porcelain > "$SNAPSHOT" ;;
  check)
    [ -f "$SNAPSHOT" ] || { echo "check_clean: no snapshot ($SNAPSHOT): run 'check_clean.sh save' first" >&2; exit 2; }
    changed=$( (diff "$SNAPSHOT" <(git status --porcelain) || true) | sed -n "s/^> //p")
    if [ -n "$changed" ]; then
      echo "check_clean: the test run changed the checkout (git status --porcelain):" >&2
      echo "$changed" >&2
      exit 1
    fi
    echo "check_clean: the checkout is as the test run found it" ;;
  *) echo "usage: $0 save|check" >&2; exit 2 ;;
esac
