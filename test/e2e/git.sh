#!/usr/bin/env bash
# End-to-end test of git sources: the stax binary against git daemon on a
# loopback port, serving a repository laid out as anthropics/skills
# (skills/, a plugin marketplace) with two release tags. A project installs
# a plugin at a tag, and a skill of the SUBDIR skills/ at the highest tag;
# stax.lock records both commits and no credentials; list and verify
# --installed read the install; a fresh clone of the project installs
# --frozen with another STAX_HOME; with the server stopped, a plain install
# and a frozen one of a clone take the locked, cached commits.
#
# Usage: STAX=bin/stax bash test/e2e/git.sh
#
# It needs git (with git daemon) and a built stax ($STAX, default
# bin/stax). It ends with "e2e: 4 passed, 0 failed", or exits non-zero with
# the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

fail() {
  echo "e2e: FAIL: $*" >&2
  [[ -s ${work:-}/daemon.log ]] && { echo "--- git daemon log:" >&2; tail -n 20 "$work/daemon.log" >&2; }
  echo "e2e: 0 passed, 1 failed"
  exit 1
}
STAX=${STAX:-bin/stax}
[[ -x $STAX ]] || fail "no stax binary at $STAX (make build, or set STAX)"
STAX=$(cd "$(dirname "$STAX")" && pwd)/$(basename "$STAX")
command -v git >/dev/null || fail "git is not installed"
fixture=$PWD/testdata/repos/anthropics-skills

daemon_pid=
stop_daemon() {
  if [[ -n $daemon_pid ]]; then
    kill "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
    daemon_pid=
  fi
}
work=$(mktemp -d)
trap 'stop_daemon; rm -rf "$work"' EXIT
# Neither the machine's git configuration nor its stax home is read.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=e2e GIT_AUTHOR_EMAIL=e2e@example.com GIT_COMMITTER_NAME=e2e GIT_COMMITTER_EMAIL=e2e@example.com
export STAX_HOME=$work/home

# The upstream repository: the fixture at v1.0.0, and v1.1.0 adding a file
# to each skill of skills/.
up=$work/upstream
git init -q "$up"
cp -r "$fixture/." "$up"
git -C "$up" add -A && git -C "$up" commit -qm v1.0.0 && git -C "$up" tag v1.0.0
for d in "$up"/skills/*/; do echo "1.1" >"$d/CHANGES.md"; done
git -C "$up" add -A && git -C "$up" commit -qm v1.1.0 && git -C "$up" tag v1.1.0
v1=$(git -C "$up" rev-parse v1.0.0^{commit})
v11=$(git -C "$up" rev-parse v1.1.0^{commit})
mkdir "$work/served"
git clone -q --bare "$up" "$work/served/skills.git"

# start_daemon serves $work/served with git daemon on a free loopback port
# and sets $port: a port another process takes first makes git daemon exit,
# and another is tried.
start_daemon() {
  # git-daemon itself, not the git that would run it as a child: $! is
  # then the process to stop.
  local daemon
  daemon=$(git --exec-path)/git-daemon
  [[ -x $daemon ]] || fail "no git daemon at $daemon"
  for _ in $(seq 20); do
    port=$((20000 + RANDOM % 40000))
    : >"$work/daemon.log"
    GIT_CONFIG_PARAMETERS="'uploadpack.allowfilter=true'" "$daemon" --verbose --export-all --reuseaddr \
      --base-path="$work/served" --listen=127.0.0.1 --port="$port" "$work/served" 2>>"$work/daemon.log" &
    daemon_pid=$!
    for _ in $(seq 50); do # 5 s at most
      kill -0 "$daemon_pid" 2>/dev/null || break
      if grep -q "\[$daemon_pid\] Ready to rumble" "$work/daemon.log"; then
        echo "e2e: $(git version) daemon on 127.0.0.1:$port"
        return 0
      fi
      sleep 0.1
    done
    stop_daemon
  done
  fail "git daemon did not start"
}
start_daemon
url=git://127.0.0.1:$port/skills.git

# skills_of DIR: the skill folders installed in DIR, one line.
skills_of() { (cd "$1/.claude/skills" && ls -d -- */ | tr -d / | tr '\n' ' '); }

# 1. A plugin at a tag, and one skill of the SUBDIR skills/ (a folder of
# skill folders) at the highest tag; stax.lock holds both commits.
app=$work/app
mkdir "$app" && cd "$app" && git init -q .
"$STAX" install "$url#v1.0.0" --plugin document-skills --runtime claude-code >"$work/out" 2>&1 ||
  fail "install --plugin: $(cat "$work/out")"
"$STAX" install "$url//skills" --skill frontend-design >"$work/out" 2>&1 ||
  fail "install --skill: $(cat "$work/out")"
[[ $(skills_of "$app") == "docx frontend-design pdf xlsx " ]] || fail "installed: $(skills_of "$app")"
[[ -f .claude/skills/frontend-design/CHANGES.md && ! -f .claude/skills/pdf/CHANGES.md ]] ||
  fail "frontend-design is not at v1.1.0, or pdf not at v1.0.0"
grep -qF "commit: $v1" stax.lock && grep -qF "commit: $v11" stax.lock || fail "stax.lock lacks a commit: $(cat stax.lock)"
grep -qF "url: $url" stax.lock || fail "stax.lock does not record $url: $(cat stax.lock)"
echo "e2e: install --plugin at a tag and --skill of a SUBDIR over git://: ok"

# 2. list and verify --installed read it; a URL's credentials reach neither
# stax.lock nor the output.
"$STAX" list >"$work/out" 2>&1 || fail "stax list: $(cat "$work/out")"
grep -q frontend-design "$work/out" && grep -q docx "$work/out" || fail "stax list: $(cat "$work/out")"
"$STAX" verify --installed >"$work/out" 2>&1 || fail "stax verify --installed: $(cat "$work/out")"
secret=$work/secret
mkdir "$secret" && cd "$secret"
"$STAX" install "git+http://e2e:hunter2@127.0.0.1:1/skills.git" --runtime claude-code --no-progress >"$work/out" 2>&1 &&
  fail "an install from a closed port succeeded"
! grep -q hunter2 "$work/out" || fail "the password is printed: $(cat "$work/out")"
! grep -rqF hunter2 "$secret" "$STAX_HOME" || fail "the password is written to $(grep -rlF hunter2 "$secret" "$STAX_HOME")"
cd "$app"
! grep -qF '@127' stax.lock stax.yaml || fail "credentials in stax.lock or stax.yaml"
echo "e2e: list, verify --installed, no credentials: ok"

# 3. A fresh clone of the project, another STAX_HOME: --frozen installs the
# locked commits though v1.1.0 is newer than the plugin's v1.0.0.
git add -A . && git commit -qm skills
git clone -q "$app" "$work/clone"
STAX_HOME=$work/home2 "$STAX" install --frozen --dir "$work/clone" >"$work/out" 2>&1 ||
  fail "install --frozen in a clone: $(cat "$work/out")"
[[ $(skills_of "$work/clone") == "docx frontend-design pdf xlsx " ]] || fail "frozen: $(skills_of "$work/clone")"
cmp -s stax.lock "$work/clone/stax.lock" || fail "the frozen install changed stax.lock"
(cd "$work/clone" && STAX_HOME=$work/home2 "$STAX" verify --installed >/dev/null 2>&1) || fail "verify --installed in the clone"
echo "e2e: install --frozen in a fresh clone with another STAX_HOME: ok"

# 4. With the server stopped, the locked commits are cached: a plain
# install keeps them, and a frozen one of another clone asks nothing.
stop_daemon
"$STAX" install >"$work/out" 2>&1 || fail "a plain install with the server stopped: $(cat "$work/out")"
cmp -s stax.lock "$work/clone/stax.lock" || fail "a plain install changed stax.lock"
git clone -q "$app" "$work/clone2"
"$STAX" install --frozen --dir "$work/clone2" >"$work/out" 2>&1 ||
  fail "install --frozen with the server stopped: $(cat "$work/out")"
[[ $(skills_of "$work/clone2") == "docx frontend-design pdf xlsx " ]] || fail "frozen, offline: $(skills_of "$work/clone2")"
echo "e2e: the locked commits installed again with the server stopped: ok"

echo "e2e: 4 passed, 0 failed"
