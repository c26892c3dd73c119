# shellcheck shell=bash
# Sourced by e2e scripts that need a registry. start_registry runs Debian's
# docker-registry (distribution 2.8; $DOCKER_REGISTRY overrides its path) on
# a loopback port the kernel picks and sets $port; REGISTRY_DELETE=false
# starts it with deletes disabled, so that it answers DELETE with 405 as
# GHCR does. The caller defines fail() and $work (a temporary directory) and
# calls stop_registry on exit; stax_registry_session does all of that for a
# script that needs nothing else.

registry_pid=

# registry_fail is fail, with the end of the registry's log.
registry_fail() {
  echo "--- last lines of the registry log:" >&2
  tail -n 20 "$work/registry.log" >&2
  fail "$@"
}

stop_registry() {
  if [[ -n $registry_pid ]]; then
    kill "$registry_pid" 2>/dev/null || true
    wait "$registry_pid" 2>/dev/null || true
  fi
}

# ping_registry PORT: true when GET /v2/ answers 200 (plain bash, no curl
# needed).
ping_registry() {
  local status
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET /v2/ HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$1" >&3
  read -r -t 2 _ status _ <&3 || status=
  exec 3<&-
  [[ $status == 200 ]]
}

start_registry() {
  local bin=${DOCKER_REGISTRY:-/usr/bin/docker-registry}
  [[ -x $bin ]] || fail "no docker-registry at $bin (apt-get install docker-registry)"
  cat >"$work/registry.yml" <<YML
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $work/registry-data
  delete:
    enabled: ${REGISTRY_DELETE:-true}
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:0
  secret: stax-e2e
YML
  # The log exists before the loop reads it: the background child opens its
  # own redirection when it gets to it, which may be after the first read.
  : >"$work/registry.log"
  "$bin" serve "$work/registry.yml" >>"$work/registry.log" 2>&1 &
  registry_pid=$!
  port=
  for _ in $(seq 100); do # 10 s at most
    kill -0 "$registry_pid" 2>/dev/null || registry_fail "docker-registry exited at start"
    if [[ -z $port ]]; then
      port=$(sed -n 's/.*msg="listening on 127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$work/registry.log" | head -n 1)
    fi
    if [[ -n $port ]] && ping_registry "$port" 2>/dev/null; then
      echo "e2e: $("$bin" --version) on 127.0.0.1:$port"
      return 0
    fi
    sleep 0.1
  done
  registry_fail "docker-registry did not answer on /v2/ within 10 s"
}

# stax_registry_session sets up a script that drives $STAX (default
# bin/stax, made absolute) against one registry: fail, $work removed on
# exit, the registry started, and a $STAX_HOME and $DOCKER_CONFIG of its own
# so that nothing is read from or written to the machine's.
stax_registry_session() {
  fail() {
    echo "e2e: FAIL: $*" >&2
    echo "e2e: 0 passed, 1 failed"
    exit 1
  }
  STAX=${STAX:-bin/stax}
  [[ -x $STAX ]] || fail "no stax binary at $STAX (make build, or set STAX)"
  STAX=$(cd "$(dirname "$STAX")" && pwd)/$(basename "$STAX")
  work=$(mktemp -d)
  trap 'stop_registry; rm -rf "$work"' EXIT
  start_registry
  export STAX_HOME="$work/home"
  export DOCKER_CONFIG="$work/docker"
  mkdir -p "$STAX_HOME" "$DOCKER_CONFIG"
}

# expect CODE DESCRIPTION COMMAND...: run COMMAND, which must exit CODE
# (any failure when CODE is "fail"); its output is left in $work/out.txt
# and $work/err.txt. Each command that does counts in $passed.
passed=0
expect() {
  local want=$1 what=$2 code=0
  shift 2
  "$@" >"$work/out.txt" 2>"$work/err.txt" || code=$?
  if [[ $want == fail && $code -ne 0 ]] || [[ $code == "$want" ]]; then
    passed=$((passed + 1))
    return
  fi
  cat "$work/out.txt" "$work/err.txt" >&2
  registry_fail "$what: exit $code, want $want"
}
