#!/usr/bin/env bash
# End-to-end test of layering and publishing against docker-registry
# (CNCF distribution 2.8) on a loopback port: precedence inside a published
# package's own dependencies, push refusing a path dependency and
# --push-dependencies publishing it, and stax apply on a proposal.
#
# Usage: STAX=bin/stax bash test/e2e/layering.sh
#
# Like registry.sh, it needs the docker-registry binary ($DOCKER_REGISTRY
# overrides its path; lib/registry.sh starts it) and a built stax ($STAX,
# default bin/stax). It ends with "e2e: 3 passed, 0 failed", or exits
# non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
stax_registry_session
host=127.0.0.1:$port

# package NAME DEPS SKILL...: a package directory under $work/src.
package() {
  local name=$1 deps=$2 dir=$work/src/$1
  shift 2
  mkdir -p "$dir/skills"
  printf 'name: %s\nversion: 1.0.0\n%s' "$name" "$deps" >"$dir/stax.yaml"
  for s in "$@"; do
    mkdir -p "$dir/skills/$s"
    printf -- '---\nname: %s\ndescription: The %s skill of %s. Use when testing layering.\n---\nFrom %s.\n' \
      "$s" "$s" "$name" "$name" >"$dir/skills/$s/SKILL.md"
  done
}

# 1. top2 declares [d2, d1b]; d1b depends on t. t is transitive to top2,
# so d2's "shared" wins, and the report says why.
package t "" shared
package d2 "" shared
package d1b "packages: [$host/e2e/t:1.0.0]"$'\n' d1b-only
package top2 "packages: [$host/e2e/d2:1.0.0, $host/e2e/d1b:1.0.0]"$'\n' top-only
for p in t d2 d1b top2; do
  "$STAX" push "$work/src/$p" "$host/e2e/$p:1.0.0" --no-progress >/dev/null || registry_fail "stax push $p"
done
"$STAX" pull "$host/e2e/top2:1.0.0" -o "$work/out" --no-progress >/dev/null 2>"$work/pull.err" || registry_fail "stax pull top2"
grep -q "From d2." "$work/out/shared/SKILL.md" || fail "shared is not d2's: $(cat "$work/out/shared/SKILL.md")"
grep -qF "skill shared: $host/e2e/d2:1.0.0 (direct, 1st) over $host/e2e/t:1.0.0 (transitive via $host/e2e/d1b:1.0.0)" "$work/pull.err" ||
  fail "override report: $(cat "$work/pull.err")"
echo "e2e: precedence inside a published package: ok"

# 2. A path dependency is never published; beside a ref, --push-dependencies
# publishes it first and the package records the ref.
package p41 "" base
package top "packages: [../p41]"$'\n' top
rc=0
"$STAX" push "$work/src/top" "$host/e2e/top:1.0.0" --no-progress 2>"$work/push.err" || rc=$?
[[ $rc -eq 4 ]] || fail "push with a path dependency: exit $rc, want 4: $(cat "$work/push.err")"
grep -q -- "--push-dependencies" "$work/push.err" || fail "the refusal does not say the fix: $(cat "$work/push.err")"
printf 'name: top\nversion: 1.0.0\npackages:\n  - {path: ../p41, ref: %s}\n' "$host/e2e/p41:1.0.0" >"$work/src/top/stax.yaml"
"$STAX" push "$work/src/top" "$host/e2e/top:1.0.0" --push-dependencies --no-progress >/dev/null 2>&1 ||
  registry_fail "stax push --push-dependencies"
"$STAX" inspect "$host/e2e/top:1.0.0" --remote --output json >"$work/inspect.json" || registry_fail "stax inspect top"
grep -q '"\.\./p41"' "$work/inspect.json" && fail "the published config names the path ../p41"
grep -q "$host/e2e/p41:1.0.0" "$work/inspect.json" || fail "the published config lacks the dependency's reference"
"$STAX" pull "$host/e2e/top:1.0.0" -o "$work/out2" --no-progress >/dev/null 2>&1 || registry_fail "stax pull top"
[[ -f $work/out2/base/SKILL.md ]] || fail "the consumer did not get the dependency's skill"
echo "e2e: path dependencies: ok"

# 3. stax apply: a proposal written into a copy of the fixture skills.
cp -r testdata/proposals/skills "$work/skills"
"$STAX" apply testdata/proposals/revise.json "$work/skills" >"$work/apply.out" || fail "stax apply"
grep -q "applied revise to triage-bug: 1.2.0 → 1.3.0 (minor)" "$work/apply.out" || fail "apply said: $(cat "$work/apply.out")"
rc=0
"$STAX" apply testdata/proposals/reject-hostile-paths.json "$work/skills" 2>"$work/apply.err" || rc=$?
[[ $rc -eq 1 ]] && grep -q "rule safe-paths" "$work/apply.err" || fail "a hostile proposal: exit $rc: $(cat "$work/apply.err")"
[[ ! -e $work/evil ]] || fail "a hostile proposal wrote outside the skills directory"
"$STAX" validate "$work/skills" >"$work/validate.out" 2>&1 || fail "the applied skills do not validate: $(cat "$work/validate.out")"
echo "e2e: stax apply: ok"

echo "e2e: 3 passed, 0 failed"
