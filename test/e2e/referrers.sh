#!/usr/bin/env bash
# End-to-end test of `stax copy` to a registry that, like GHCR, has no
# referrers API and refuses DELETE (405): Debian's docker-registry
# (distribution 2.8) with deletes disabled. A package signed twice is copied
# twice, so the second copy replaces the destination's referrers index; the
# copy must succeed, tag the package and keep both signatures.
#
# Usage: STAX=bin/stax bash test/e2e/referrers.sh
#
# It needs the docker-registry binary ($DOCKER_REGISTRY overrides its path),
# a built stax ($STAX, default bin/stax) and sha256sum. It ends with
# "e2e: 1 passed, 0 failed", or exits non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
REGISTRY_DELETE=false stax_registry_session

# get PORT PATH ACCEPT: prints the answer to a GET, status line, headers
# and body (plain bash, no curl needed).
get() {
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nAccept: %s\r\n\r\n' "$2" "$1" "$3" >&3
  timeout 5 cat <&3
  exec 3<&-
}
echo "e2e: (deletes disabled)"

layout=$work/layout
ref=127.0.0.1:$port/e2e/skills:1.0.0

# The package, in an OCI layout, then signed there as a signer would: a
# manifest whose subject is the package, listed in the layout's index.
"$STAX" push examples "oci:$layout:1.0.0" --output json --no-progress >"$work/push.json" || fail "stax push to a layout"
subject_digest=$(sed -n 's/^  "digest": "\(sha256:[0-9a-f]*\)",$/\1/p' "$work/push.json")
subject_size=$(sed -n 's/^  "size": \([0-9]*\),$/\1/p' "$work/push.json")
[[ -n $subject_digest && -n $subject_size ]] || fail "no digest and size in stax push --output json"

# put_blob FILE: stores FILE in the layout, prints "DIGEST SIZE".
put_blob() {
  local hex size
  hex=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(wc -c <"$1")
  cp "$1" "$layout/blobs/sha256/$hex"
  echo "sha256:$hex $size"
}

sign() { # sign N: adds signature N, prints its manifest digest
  local n=$1 cfg payload manifest
  printf '{"signedAt":"2026-01-01T00:00:0%sZ","signer":"e2e"}' "$n" >"$work/cfg$n"
  printf 'signature %s' "$n" >"$work/payload$n"
  read -r cfg_digest cfg_size < <(put_blob "$work/cfg$n")
  read -r payload_digest payload_size < <(put_blob "$work/payload$n")
  printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.stax.signature.v1","config":{"mediaType":"application/vnd.stax.config.v1+json","digest":"%s","size":%s},"layers":[{"mediaType":"application/vnd.stax.signature.payload.v1","digest":"%s","size":%s}],"subject":{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"%s","size":%s}}' \
    "$cfg_digest" "$cfg_size" "$payload_digest" "$payload_size" "$subject_digest" "$subject_size" >"$work/sig$n"
  read -r manifest_digest manifest_size < <(put_blob "$work/sig$n")
  sed -i "s|\"manifests\":\[|\"manifests\":[{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"digest\":\"$manifest_digest\",\"size\":$manifest_size},|" "$layout/index.json"
  echo "$manifest_digest"
}

sigs=()
for n in 1 2; do
  sigs+=("$(sign "$n")")
  # The second copy replaces the referrers index the first one made, and
  # the registry refuses to delete the old one.
  "$STAX" copy "oci:$layout:1.0.0" "$ref" --no-progress 2>"$work/copy$n.err" || {
    cat "$work/copy$n.err" >&2
    registry_fail "stax copy $n to a registry that refuses DELETE"
  }
done
grep -q '"DELETE /v2/' "$work/registry.log" && fail "stax sent a DELETE"

index=$(get "$port" "/v2/e2e/skills/manifests/sha256-${subject_digest#sha256:}" application/vnd.oci.image.index.v1+json)
for sig in "${sigs[@]}"; do
  grep -q "$sig" <<<"$index" || fail "signature $sig is not in the destination's referrers index: $index"
done
"$STAX" pull "$ref" -o "$work/out" --no-progress || registry_fail "the copy was not tagged: stax pull $ref"
diff -r examples/skills "$work/out" >/dev/null || fail "the copied package differs from examples/skills"

echo "e2e: 1 passed, 0 failed"
