#!/usr/bin/env bash
# End-to-end test of `stax push` and `stax pull` against a second, independent
# registry implementation: Debian's docker-registry (CNCF distribution 2.8),
# run on a loopback port. The Go tests use distribution v3 in-process.
#
# Usage: STAX=bin/stax bash test/e2e/registry.sh
#
# It installs nothing: it needs the docker-registry binary (Debian package
# docker-registry; $DOCKER_REGISTRY overrides its path) and a built stax
# ($STAX, default bin/stax). It ends with "e2e: 1 passed, 0 failed", or
# exits non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

STAX=${STAX:-bin/stax}
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
[[ -x $STAX ]] || fail "no stax binary at $STAX (make build, or set STAX)"
STAX=$(cd "$(dirname "$STAX")" && pwd)/$(basename "$STAX")

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
cat >"$work/config.yml" <<EOF
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $work/data
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:0
  secret: stax-e2e
EOF
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

export STAX_HOME="$work/home"
export DOCKER_CONFIG="$work/docker" # no credentials from the machine
mkdir -p "$STAX_HOME" "$DOCKER_CONFIG"
ref=127.0.0.1:$port/e2e/skills:1.0.0
out=$work/out

"$STAX" push examples "$ref" --no-progress || registry_fail "stax push $ref"
"$STAX" pull "$ref" -o "$out" --no-progress || registry_fail "stax pull $ref -o $out"

# The same bytes...
diff -r examples/skills "$out" >"$work/diff" || {
  cat "$work/diff" >&2
  fail "the pulled tree differs from examples/skills"
}
# ...and the same modes. stax writes exactly 0755 for directories and
# executables and 0644 for other files, whatever the umask; a checkout has
# those modes only under umask 022, so the source's modes are reduced to
# its execute bit before comparing.
find "$out" -mindepth 1 -printf '%y %m %P\n' | sort -k3 >"$work/modes.out"
grep -vE '^(d 755|f 755|f 644) ' "$work/modes.out" && fail "pulled modes other than 0644/0755 (above)"
find examples/skills -mindepth 1 \( -type d -printf 'd 755 %P\n' \) -o \
  \( -type f -perm -u+x -printf 'f 755 %P\n' \) -o \( -type f -printf 'f 644 %P\n' \) |
  sort -k3 >"$work/modes.src"
diff "$work/modes.src" "$work/modes.out" >&2 || fail "pulled file modes differ from examples/skills"

# Pushing again uploads no blob: the registry has them all.
uploads() { grep -cE '"(POST|PUT|PATCH) /v2/e2e/skills/blobs/uploads/' "$work/registry.log" || true; }
before=$(uploads)
"$STAX" push examples "$ref" --no-progress || registry_fail "second stax push $ref"
after=$(uploads)
[[ $before -gt 0 ]] || fail "no blob uploads in the registry's access log after the first push"
[[ $after -eq $before ]] || fail "the second push uploaded blobs again ($before, then $after upload requests)"

echo "e2e: 1 passed, 0 failed"
