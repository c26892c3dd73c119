#!/usr/bin/env bash
# End-to-end test of cosign's tag-based signatures against Debian's
# docker-registry (distribution 2.8): cosign signs a stax package with a
# key and --new-bundle-format=false (a sha256-<hex>.sig tag holding a
# simple-signing payload, what cosign v1 and v2 write), then stax verify
# --key exits 0 with that key and 6 ("wrong key") with another, pull and
# install --verify require accept it, and after stax copy to another
# repository and to an OCI layout both stax and cosign still verify it.
# cosign signs offline: no transparency log, no Sigstore signing config.
#
# Usage: STAX=bin/stax [COSIGN=path/to/cosign] bash test/e2e/cosign-sig.sh
#
# It needs the docker-registry binary (Debian package docker-registry;
# $DOCKER_REGISTRY overrides its path), a built stax ($STAX, default
# bin/stax) and cosign v3 ($COSIGN; by default the version the Makefile
# pins, which make builds into bin/tools on first use). It ends with "e2e: N passed, 0 failed", or
# exits non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
stax_registry_session
# shellcheck source=lib/tools.sh
source test/e2e/lib/tools.sh
COSIGN=${COSIGN:-$(tool cosign)}
[[ ! -e $COSIGN ]] || COSIGN=$(realpath "$COSIGN")
[[ -x $COSIGN ]] || fail "no cosign binary at $COSIGN (set COSIGN)"
export STAX_PASSWORD=e2e-password COSIGN_PASSWORD=e2e-cosign
# cosign keeps its TUF cache under $HOME; it must not touch the machine's.
export HOME="$work/cosign-home"
mkdir -p "$HOME"
repo=127.0.0.1:$port/e2e


# cosign_sign KEY REF [PASSWORD]: sign as cosign v2 did, offline.
cosign_sign() {
  COSIGN_PASSWORD=${3:-$COSIGN_PASSWORD} "$COSIGN" sign --key "$1" --new-bundle-format=false --tlog-upload=false \
    --use-signing-config=false --allow-http-registry --yes "$2"
}

# cosign_verify KEY REF: verify a .sig signature offline.
cosign_verify() {
  "$COSIGN" verify --key "$1" --insecure-ignore-tlog=true --allow-http-registry "$2"
}

expect 0 "push" "$STAX" push ./examples "$repo/pkg:1.0.0" --no-progress
digest=$(grep -o 'sha256:[0-9a-f]\{64\}' "$work/out.txt" | head -n 1)
[[ -n $digest ]] || fail "push printed no digest: $(cat "$work/out.txt")"
expect 0 "cosign generate-key-pair" "$COSIGN" generate-key-pair --output-key-prefix "$work/cosign"
expect 0 "stax key generate" "$STAX" key generate --output-prefix "$work/other"

expect 6 "verify before cosign signs" "$STAX" verify "$repo/pkg:1.0.0" --key "$work/cosign.pub"
grep -q "no signature" "$work/err.txt" || fail "no signature is not the reason: $(cat "$work/err.txt")"
expect 0 "cosign sign --new-bundle-format=false" cosign_sign "$work/cosign.key" "$repo/pkg@$digest"
expect 0 "cosign verify" cosign_verify "$work/cosign.pub" "$repo/pkg@$digest"

expect 0 "stax verify --key" "$STAX" --output json verify "$repo/pkg:1.0.0" --key "$work/cosign.pub"
grep -q '"format": "cosign-simplesigning"' "$work/out.txt" || fail "verify does not name cosign's format: $(cat "$work/out.txt")"
expect 6 "stax verify with the wrong key" "$STAX" verify "$repo/pkg:1.0.0" --key "$work/other.pub"
grep -q "wrong key" "$work/err.txt" || fail "the wrong key is not the reason: $(cat "$work/err.txt")"

expect 0 "pull --verify require" "$STAX" pull --verify require --key "$work/cosign.pub" "$repo/pkg:1.0.0" -o "$work/pulled" --no-progress
diff -r examples/skills "$work/pulled" >/dev/null || fail "the pulled tree differs from examples/skills"
expect 6 "pull --verify require, wrong key" "$STAX" pull --verify require --key "$work/other.pub" "$repo/pkg:1.0.0" -o "$work/refused" --no-progress
[[ ! -e $work/refused ]] || fail "a refused pull wrote $work/refused"
mkdir "$work/project"
expect 0 "install --verify require" "$STAX" install "$repo/pkg:1.0.0" --dir "$work/project" --runtime claude-code --verify require --key "$work/cosign.pub"

expect 0 "copy to another repository" "$STAX" copy "$repo/pkg:1.0.0" "$repo/mirror:1.0.0" --no-progress
expect 0 "stax verify the copy" "$STAX" verify "$repo/mirror:1.0.0" --key "$work/cosign.pub"
expect 0 "cosign verify the copy" cosign_verify "$work/cosign.pub" "$repo/mirror@$digest"
expect 6 "stax verify the copy, wrong key" "$STAX" verify "$repo/mirror:1.0.0" --key "$work/other.pub"
expect 0 "copy to an OCI layout" "$STAX" copy "$repo/pkg:1.0.0" "oci:$work/layout:1.0.0" --no-progress
expect 0 "stax verify the layout" "$STAX" verify "oci:$work/layout:1.0.0" --key "$work/cosign.pub"

# An Ed25519 key that stax wrote: cosign v3 signs with it prehashed
# (Ed25519ph), a second layer of the same .sig manifest.
expect 0 "stax key generate ed25519" "$STAX" key generate --output-prefix "$work/ed" --algorithm ed25519
expect 0 "cosign sign with a stax ed25519 key" cosign_sign "$work/ed.key" "$repo/pkg@$digest" "$STAX_PASSWORD"
expect 0 "stax verify the ed25519 signature" "$STAX" verify "$repo/pkg:1.0.0" --key "$work/ed.pub"
expect 0 "the ecdsa signature still verifies" "$STAX" verify "$repo/pkg:1.0.0" --key "$work/cosign.pub"

echo "e2e: $passed passed, 0 failed"
