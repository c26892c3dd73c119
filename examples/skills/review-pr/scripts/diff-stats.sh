#!/usr/bin/env bash
# Prints the size of the current branch's change against its merge base.
set -euo pipefail
base=$(git merge-base HEAD "${1:-origin/main}")
git diff --shortstat "$base" HEAD
git diff --numstat "$base" HEAD | awk '{ added += $1; removed += $2 } END { print added + removed " lines changed" }'
