#!/usr/bin/env bash
# End-to-end test of versions and updates against docker-registry (CNCF
# distribution 2.8) on a loopback port, with tags pushed by another client
# (crane, built from the go-containerregistry module stax already requires):
# stax tags orders them, a range picks from them, and add, outdated,
# update --dry-run, update, update --latest and remove keep stax.yaml and
# stax.lock as the versions guide says.
#
# Usage: STAX=bin/stax bash test/e2e/versions.sh
#
# It needs the docker-registry binary ($DOCKER_REGISTRY overrides its path;
# lib/registry.sh starts it) and a built stax ($STAX, default bin/stax). It
# ends with "e2e: 4 passed, 0 failed", or exits non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
stax_registry_session
host=127.0.0.1:$port
repo=$host/acme/org-skills

go build -o "$work/crane" github.com/google/go-containerregistry/cmd/crane || fail "go build crane"
crane() { "$work/crane" --insecure "$@"; }

# release VERSION: a package directory of org-skills at VERSION, whose one
# skill says which release it is.
release() {
  local dir=$work/src/$1
  mkdir -p "$dir/skills/review"
  printf 'name: org-skills\nversion: %s\n' "$1" >"$dir/stax.yaml"
  printf -- '---\nname: review\ndescription: Reviews a change. Use when reviewing code.\n---\nRelease %s.\n' "$1" \
    >"$dir/skills/review/SKILL.md"
  echo "$dir"
}

# 1. Tags another client pushed: versions highest first (1.10.0 above 1.9.0,
# v1.2.0 read as a version, the release candidate below its release), the
# others after them, the signature-like tag only with --all.
"$STAX" push "$(release 1.9.0)" "$repo" --no-progress >/dev/null 2>&1 || registry_fail "stax push 1.9.0"
for tag in 1.10.0 v1.2.0 2.0.0-rc.1 latest; do
  crane tag "$repo:1.9.0" "$tag" >/dev/null 2>&1 || registry_fail "crane tag $tag"
done
digest=$(crane digest "$repo:1.9.0") || registry_fail "crane digest"
crane tag "$repo:1.9.0" "${digest/:/-}.sig" >/dev/null 2>&1 || registry_fail "crane tag .sig"
got=$("$STAX" tags "$repo" 2>/dev/null | tr '\n' ' ') || registry_fail "stax tags"
[[ $got == "2.0.0-rc.1 1.10.0 1.9.0 v1.2.0 latest " ]] || fail "stax tags: got '$got'"
"$STAX" tags "$repo" --all 2>/dev/null | grep -x >/dev/null "${digest/:/-}.sig" || fail "stax tags --all hides the .sig tag"
echo "e2e: tags pushed by crane, in version order: ok"

# 2. add with a range takes the highest release it allows, not the release
# candidate, and saves the range; stax.lock records range, version and tag.
project=$work/app
mkdir -p "$project"
printf '# our agent skills\ninstall:\n  runtimes: [claude-code]\n' >"$project/stax.yaml"
cd "$project"
"$STAX" add "$repo" --version '^1.2.0' --no-progress >/dev/null 2>"$work/add.err" || registry_fail "stax add: $(cat "$work/add.err")"
grep -qF '# our agent skills' stax.yaml || fail "add lost the comment of stax.yaml: $(cat stax.yaml)"
grep -qF "{ref: $repo, version: \"^1.2.0\"}" stax.yaml || fail "add did not save the range: $(cat stax.yaml)"
grep -qF 'range: ^1.2.0' stax.lock && grep -qF 'version: 1.10.0' stax.lock || fail "stax.lock: $(cat stax.lock)"
grep -qF 'Release 1.9.0.' .claude/skills/review/SKILL.md || fail "installed: $(cat .claude/skills/review/SKILL.md)"
cp stax.yaml "$work/yaml.added"
cp stax.lock "$work/lock.added"
rc=0
"$STAX" add "$repo" --version '^3' --no-progress >/dev/null 2>"$work/none.err" || rc=$?
[[ $rc -eq 4 ]] || fail "a range nothing matches: exit $rc, want 4: $(cat "$work/none.err")"
grep -qF '1.10.0' "$work/none.err" || fail "the refusal lists no tags: $(cat "$work/none.err")"
cmp -s stax.yaml "$work/yaml.added" && cmp -s stax.lock "$work/lock.added" || fail "a refused add changed stax.yaml or stax.lock"
echo "e2e: add with a range: ok"

# 3. A new release in range and one out of it: outdated sees both,
# --exit-code says so, update --dry-run changes nothing, update takes the
# one in range, update --latest moves the range.
"$STAX" push "$(release 1.11.0)" "$repo" --no-progress >/dev/null 2>&1 || registry_fail "stax push 1.11.0"
"$STAX" push "$(release 2.0.0)" "$host/acme/staging:2.0.0" --no-progress >/dev/null 2>&1 || registry_fail "stax push 2.0.0"
crane copy "$host/acme/staging:2.0.0" "$repo:2.0.0" >/dev/null 2>&1 || registry_fail "crane copy 2.0.0"
line=$("$STAX" outdated 2>/dev/null | grep -F "$repo") || fail "outdated lists nothing for $repo"
read -r -a cols <<<"$line"
[[ ${cols[*]:1} == "^1.2.0 1.10.0 1.11.0 2.0.0" ]] || fail "outdated: $line"
rc=0
"$STAX" outdated --exit-code >/dev/null 2>&1 || rc=$?
[[ $rc -eq 1 ]] || fail "outdated --exit-code: exit $rc, want 1"
cp stax.yaml "$work/yaml.before"
cp stax.lock "$work/lock.before"
"$STAX" update --dry-run 2>&1 | grep -F >/dev/null "$repo 1.10.0 → 1.11.0" || fail "update --dry-run shows no plan"
cmp -s stax.lock "$work/lock.before" && grep -qF 'Release 1.9.0.' .claude/skills/review/SKILL.md ||
  fail "update --dry-run changed something"
"$STAX" update --no-progress >/dev/null 2>&1 || registry_fail "stax update"
grep -qF 'version: 1.11.0' stax.lock && grep -qF 'Release 1.11.0.' .claude/skills/review/SKILL.md ||
  fail "update did not take 1.11.0: $(cat stax.lock)"
cmp -s stax.yaml "$work/yaml.before" || fail "update within the range rewrote stax.yaml"
"$STAX" update --latest --no-progress >/dev/null 2>&1 || registry_fail "stax update --latest"
grep -qF "{ref: $repo, version: \"^2.0.0\"}" stax.yaml && grep -qF 'Release 2.0.0.' .claude/skills/review/SKILL.md ||
  fail "update --latest: $(cat stax.yaml)"
"$STAX" update 2>&1 | grep -F >/dev/null 'nothing to update' || fail "a second update found something to do"
echo "e2e: outdated and update: ok"

# 4. remove drops the source and the skills only it supplied; --frozen on
# the result installs nothing from the registry.
"$STAX" remove "$repo" --no-progress >/dev/null 2>&1 || registry_fail "stax remove"
! grep -qF "$repo" stax.yaml || fail "remove left the source: $(cat stax.yaml)"
[[ ! -e .claude/skills/review ]] || fail "remove left the review skill"
grep -qF '# our agent skills' stax.yaml || fail "remove lost the comment of stax.yaml"
echo "e2e: remove: ok"

echo "e2e: 4 passed, 0 failed"
