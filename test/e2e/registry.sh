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

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
stax_registry_session
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
