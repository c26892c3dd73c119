#!/usr/bin/env bash
# End-to-end test of a stateful skill's life in a committed project, against
# docker-registry (CNCF distribution 2.8) on a loopback port: a user records
# a memory entry in the installed skill, takes an upstream release that adds
# another (the entries merge), the install stays verified and portable, and
# stax propose sends the user's entry back for the maintainer to apply.
#
# Usage: STAX=bin/stax bash test/e2e/memory.sh
#
# It needs the docker-registry binary ($DOCKER_REGISTRY overrides its path;
# lib/registry.sh starts it), git, and a built stax ($STAX, default
# bin/stax). It ends with "e2e: 3 passed, 0 failed", or exits non-zero with
# the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
stax_registry_session
repo=127.0.0.1:$port/acme/org-skills
skill=incident-postmortem

# The maintainer's package source: the example package, released as 1.0.0.
src=$work/org
cp -r examples "$src"
"$STAX" push "$src" "$repo:1.0.0" --no-progress >/dev/null 2>&1 || registry_fail "stax push 1.0.0"

# 1. A project installs it, commits the folder, and a user adds an entry.
app=$work/app
mkdir -p "$app"
cd "$app"
git init -q .
"$STAX" add "$repo" --version '^1.0.0' --runtime claude-code --no-progress >/dev/null 2>&1 || registry_fail "stax add"
grep -rqF "$app" .claude/skills && fail "the installed folder names this machine's path $app"
memory=.claude/skills/$skill/MEMORY.md
printf -- '- Near-misses get the short form: a reviewer reads it in five minutes.\n  — @ana, 2026-11-20\n' >>"$memory"
echo "e2e: install, then a local memory entry: ok"

# 2. Upstream adds an entry and releases 1.0.1; the update merges both.
printf -- '- Timelines in UTC only; local times went into two reports by mistake.\n  — @mira, 2026-11-24\n' \
  >>"$src/skills/$skill/MEMORY.md"
sed -i 's/^version: 1.0.0$/version: 1.0.1/' "$src/stax.yaml"
"$STAX" bump "$skill" --dir "$src/skills" >/dev/null 2>&1 || fail "stax bump"
"$STAX" push "$src" "$repo:1.0.1" --no-progress >/dev/null 2>&1 || registry_fail "stax push 1.0.1"
"$STAX" update --no-progress >"$work/update.out" 2>&1 || fail "stax update: $(cat "$work/update.out")"
grep -qF "merged $skill/MEMORY.md: kept your 1 entry" "$work/update.out" || fail "update: $(cat "$work/update.out")"
grep -qF -- '— @ana, 2026-11-20' "$memory" && grep -qF -- '— @mira, 2026-11-24' "$memory" || fail "merged MEMORY.md: $(cat "$memory")"
"$STAX" verify --installed >/dev/null 2>&1 || fail "verify --installed after the merge"
[[ -z $(git status --porcelain .stax) ]] || fail ".stax shows in git status"
echo "e2e: an upstream release merged with the local entry: ok"

# 3. The user's entry goes back upstream; the maintainer applies it, which
# bumps the patch version, and the package still validates.
"$STAX" propose "$skill" -o learnings.json >"$work/propose.out" 2>&1 || fail "stax propose: $(cat "$work/propose.out")"
grep -qF '@ana, 2026-11-20' "$work/propose.out" || fail "propose does not list the entry: $(cat "$work/propose.out")"
before=$(sed -n 's/^version: //p' "$src/skills/$skill/SKILL.md" | head -1)
"$STAX" apply learnings.json "$src/skills" >"$work/apply.out" 2>&1 || fail "stax apply: $(cat "$work/apply.out")"
after=$(sed -n 's/^version: //p' "$src/skills/$skill/SKILL.md" | head -1)
[[ $before != "$after" && ${after%.*} == "${before%.*}" ]] || fail "apply bumped $before to $after, want a patch bump"
grep -qF -- '— @ana, 2026-11-20' "$src/skills/$skill/MEMORY.md" || fail "the entry did not reach the package source"
"$STAX" validate "$src" >/dev/null 2>&1 || fail "the package does not validate after apply"
echo "e2e: the entry proposed back and applied: ok"

echo "e2e: 3 passed, 0 failed"
