#!/usr/bin/env bash
# End-to-end test of a crash during `stax install`: a real stax process is
# killed with SIGKILL while it swaps a 1,000-skill package into a project,
# at several moments after its journal appears. After each kill, the next
# stax (here verify --installed, which recovers under the install lock)
# must find old or new, never a mix, with the install record and
# stax.lock describing what is on disk; and a plain rerun (no --force)
# must install the new package.
#
# Usage: STAX=bin/stax bash test/e2e/crash.sh
#
# It needs only a built stax ($STAX, default bin/stax). It ends with
# "e2e: N passed, 0 failed", or exits non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

STAX=${STAX:-bin/stax}
SKILLS=${SKILLS:-1000}
[[ -x $STAX ]] || { echo "e2e: FAIL: no stax binary at $STAX (make build, or set STAX)" >&2; exit 1; }
STAX=$(cd "$(dirname "$STAX")" && pwd)/$(basename "$STAX")

work=$(mktemp -d)
pid=
cleanup() {
  if [[ -n $pid ]]; then kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# A run killed leaves its scratch directories for the next to remove,
# which spares those under ten seconds old: the last trials' would stay
# in the system's temporary directory after the script. They go in $work.
export STAX_HOME=$work/home DOCKER_CONFIG=$work/docker TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
passed=0

fail() {
  echo "e2e: FAIL: $*" >&2
  echo "e2e: $passed passed, 1 failed"
  exit 1
}

# package DIR VERSION: a package of $SKILLS skills whose files say VERSION.
package() {
  mkdir -p "$1/skills"
  printf 'name: crash\nversion: %s.0.0\n' "$2" >"$1/stax.yaml"
  for i in $(seq -w 1 "$SKILLS"); do
    mkdir -p "$1/skills/s$i/references"
    printf -- '---\nname: s%s\ndescription: Skill %s of the crash test, version %s. Use when testing crashes.\n---\nversion %s\n' \
      "$i" "$i" "$2" "$2" >"$1/skills/s$i/SKILL.md"
    printf 'reference %s\n' "$2" >"$1/skills/s$i/references/r.md"
  done
}
package "$work/v1" 1
package "$work/v2" 2

# versions: the versions the installed SKILL.md files say, one per line.
versions() {
  cat "$proj"/.claude/skills/s*/SKILL.md 2>/dev/null | grep -h '^version ' | sort | uniq -c | awk '{print $2 $3 "x" $1}'
}

trial=0
for delay in 0 0 0.005 0.01 0.02 0.03 0.05 0.1; do
  trial=$((trial + 1))
  proj=$work/proj$trial
  mkdir -p "$proj/.claude/skills/mine"
  echo "the user's own" >"$proj/.claude/skills/mine/SKILL.md"
  "$STAX" install "$work/v1" --dir "$proj" >/dev/null 2>"$work/err" || fail "install v1: $(cat "$work/err")"
  [[ $(versions) == "version1x$SKILLS" ]] || fail "v1 not installed: $(versions)"

  "$STAX" install "$work/v2" --dir "$proj" >/dev/null 2>&1 &
  pid=$!
  # Wait for the first skill moved aside: the install is swapping.
  for _ in $(seq 1 3000); do
    compgen -G "$proj/.claude/skills/.stax-staging-*/previous/s*" >/dev/null && break
    compgen -G "$proj/.claude/skills/.stax-staging-*/.previous/s*" >/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.005
  done
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=

  "$STAX" verify --installed --dir "$proj" >"$work/out" 2>"$work/err" ||
    fail "trial $trial (kill ${delay}s into the swap): verify after the kill: $(cat "$work/out" "$work/err")"
  state=$(versions)
  case $state in
    "version1x$SKILLS" | "version2x$SKILLS") ;;
    *) fail "trial $trial (kill ${delay}s into the swap): a mix: $state" ;;
  esac
  [[ $(cat "$proj/.claude/skills/mine/SKILL.md") == "the user's own" ]] || fail "trial $trial: the user's skill changed"
  "$STAX" install "$work/v2" --dir "$proj" >/dev/null 2>"$work/err" || fail "trial $trial: rerun without --force: $(cat "$work/err")"
  [[ $(versions) == "version2x$SKILLS" ]] || fail "trial $trial: rerun did not install v2: $(versions)"
  "$STAX" verify --installed --dir "$proj" >/dev/null 2>&1 || fail "trial $trial: verify after the rerun"
  leftovers=$(find "$proj/.claude/skills" -maxdepth 1 -name '.stax-staging-*'; find "$STAX_HOME/locks" -name '*.journal.json' -o -name '*.committed')
  [[ -z $leftovers ]] || fail "trial $trial: left behind: $leftovers"
  echo "trial $trial: killed ${delay}s into the swap; recovered to ${state%x*}; rerun ok" >&2
  passed=$((passed + 1))
done
echo "e2e: $passed passed, 0 failed"
