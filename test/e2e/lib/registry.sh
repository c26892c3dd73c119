# shellcheck shell=bash
# Sourced by e2e scripts: starts Debian's docker-registry (distribution 2.8)
# on a free loopback port, sets $port, $work (a temporary directory removed
# on exit) and $REGISTRY_BIN, and defines fail and registry_fail.
# REGISTRY_DELETE=false starts it with deletes disabled, so that it answers
# DELETE with 405 as GHCR does.

REGISTRY_BIN=${DOCKER_REGISTRY:-/usr/bin/docker-registry}

fail() {
  echo "e2e: FAIL: $*" >&2
  echo "e2e: 0 passed, 1 failed"
  exit 1
}

# registry_fail is fail, with the end of the registry's log.
registry_fail() {
  echo "--- last lines of the registry log:" >&2
  tail -n 20 "$work/registry.log" >&2
  fail "$@"
}

[[ -x $REGISTRY_BIN ]] || fail "no docker-registry at $REGISTRY_BIN (apt-get install docker-registry)"

work=$(mktemp -d)
registry_pid=
cleanup() {
  if [[ -n $registry_pid ]]; then
    kill "$registry_pid" 2>/dev/null || true
    wait "$registry_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

# Port 0: the kernel picks a free port, which the registry logs.
cat >"$work/config.yml" <<CONFIG
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $work/data
  delete:
    enabled: ${REGISTRY_DELETE:-true}
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:0
  secret: stax-e2e
CONFIG
"$REGISTRY_BIN" serve "$work/config.yml" >"$work/registry.log" 2>&1 &
registry_pid=$!

# ping PORT: true when GET /v2/ answers 200 (plain bash, no curl needed).
ping() {
  local status
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET /v2/ HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$1" >&3
  read -r -t 2 _ status _ <&3 || status=
  exec 3<&-
  [[ $status == 200 ]]
}

port=
for _ in $(seq 100); do # 10 s at most
  kill -0 "$registry_pid" 2>/dev/null || registry_fail "docker-registry exited at start"
  if [[ -z $port ]]; then
    port=$(sed -n 's/.*msg="listening on 127\.0\.0\.1:\([0-9]*\)".*/\1/p' "$work/registry.log" | head -n 1)
  fi
  if [[ -n $port ]] && ping "$port" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
[[ -n $port ]] && ping "$port" 2>/dev/null || registry_fail "docker-registry did not answer on /v2/ within 10 s"
echo "e2e: $("$REGISTRY_BIN" --version) on 127.0.0.1:$port"
