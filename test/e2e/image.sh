#!/usr/bin/env bash
# End-to-end test of the container image: `make image` (ko, built from source
# through the Go module proxy on first use; no Docker daemon, no network)
# writes an OCI layout; stax itself copies it to docker-registry on a loopback
# port; crane checks that the pushed image's config runs stax as a non-root
# user, and the stax in its layer runs.
#
# Usage: STAX=bin/stax bash test/e2e/image.sh
#
# Needs the docker-registry binary (Debian package docker-registry) and a
# built stax ($STAX, default bin/stax; built when missing). It ends
# with "e2e image: N passed, 0 failed", or exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh

passed=0
fail() {
  echo "e2e image: FAIL: $*" >&2
  echo "e2e image: $passed passed, 1 failed"
  exit 1
}
pass() {
  passed=$((passed + 1))
  echo "e2e image: ok: $*"
}

work=$(mktemp -d)
trap 'stop_registry; rm -rf "$work"' EXIT
export DOCKER_CONFIG="$work/docker" # no credentials from the machine
export STAX_HOME="$work/stax-home"
stax=${STAX:-bin/stax}
if [[ ! -x $stax ]]; then
  go build -o "$work/stax" ./cmd/stax || fail "go build stax"
  stax=$work/stax
fi

t=$SECONDS
layout=bin/image # ko names the image after this path: no capitals, so not under $work
make --no-print-directory image IMAGE_LAYOUT="$layout" >"$work/image.log" 2>&1 || {
  tail -n 30 "$work/image.log" >&2
  fail "make image"
}
echo "e2e image: make image took $((SECONDS - t))s"
[[ -f $layout/index.json && -f $layout/oci-layout ]] || fail "make image wrote no OCI layout in $layout"

# crane, from the go-containerregistry module stax already requires, checks
# what stax pushed.
go build -o "$work/crane" github.com/google/go-containerregistry/cmd/crane || fail "go build crane"
crane=$work/crane

start_registry
ref=127.0.0.1:$port/stax:e2e
"$stax" copy --no-progress "oci:$layout" "$ref" >/dev/null 2>"$work/push.err" || {
  cat "$work/push.err" >&2
  registry_fail "stax copy oci:$layout $ref"
}
grep -q "(image index, 2 platforms;" "$work/push.err" || {
  cat "$work/push.err" >&2
  fail "stax copy did not say it copied an image index of 2 platforms"
}
pass "stax copy pushed the layout to $ref: $(cat "$work/push.err")"
# The registry holds the same index the layout does.
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["digest"])' "$layout/index.json")
got=$("$crane" digest "$ref") || registry_fail "crane digest $ref"
[[ $got == "$want" ]] || fail "the registry's $ref is $got, the layout's index $want"
# A second copy moves no blob.
"$stax" copy --no-progress --output json "oci:$layout" "$ref" >"$work/again.json" 2>/dev/null || registry_fail "second stax copy"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["copied"]==0 and r["kind"]=="image index" else 1)' "$work/again.json" ||
  fail "a second stax copy of the same image copied something: $(cat "$work/again.json")"
pass "the registry's index is the layout's ($want); a second copy moved nothing"

for platform in linux/amd64 linux/arm64; do
  config=$("$crane" config --platform "$platform" "$ref") || registry_fail "crane config $platform"
  python3 - "$platform" "$config" <<'PY' || fail "the $platform image config (above) is not as expected"
import json, sys
platform, cfg = sys.argv[1], json.loads(sys.argv[2])
c = cfg["config"]
problems = []
if c.get("Entrypoint") != ["/ko-app/stax"]: problems.append(f"entrypoint {c.get('Entrypoint')}")
if c.get("User") != "65532:65532": problems.append(f"user {c.get('User')!r}, want 65532:65532")
if "HOME=/home/nonroot" not in c.get("Env", []): problems.append(f"env {c.get('Env')}")
if f'{cfg["os"]}/{cfg["architecture"]}' != platform: problems.append(f'platform {cfg["os"]}/{cfg["architecture"]}')
if problems:
    print(json.dumps(cfg, indent=2), file=sys.stderr)
    print("; ".join(problems), file=sys.stderr)
    sys.exit(1)
PY
done
pass "linux/amd64 and linux/arm64: entrypoint /ko-app/stax, user 65532:65532, HOME=/home/nonroot"

# The image's file system: the static binary runs, the home is the user's.
mkdir "$work/rootfs"
"$crane" export --platform linux/amd64 "$ref" - | tar -x -C "$work/rootfs" || registry_fail "crane export"
"$crane" export --platform linux/amd64 "$ref" - | tar -tv | grep -E ' 65532/65532 .* home/nonroot/?$' >/dev/null ||
  fail "home/nonroot is not owned by 65532 in the image"
out=$(env -i "$work/rootfs/ko-app/stax" version) || fail "the image's stax does not run without an environment"
[[ $out == "stax "* ]] || fail "stax version in the image printed: $out"
pass "the image's stax runs: $out"

echo "e2e image: $passed passed, 0 failed"
