#!/usr/bin/env bash
# End-to-end test of signing against Debian's docker-registry (distribution
# 2.8, no referrers API: signatures go through the referrers tag schema):
# stax key generate, push --sign, sign, verify (exit 0 and 6), pull under a
# require policy, and verify after copying to an OCI layout.
#
# Usage: STAX=bin/stax bash test/e2e/sign.sh
#
# It needs the docker-registry binary (Debian package docker-registry;
# $DOCKER_REGISTRY overrides its path) and a built stax ($STAX, default
# bin/stax). It ends with "e2e: N passed, 0 failed", or exits non-zero with
# the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
stax_registry_session
export STAX_PASSWORD=e2e-password
repo=127.0.0.1:$port/e2e


expect 0 "key generate" "$STAX" key generate --output-prefix "$work/acme"
[[ $(stat -c %a "$work/acme.key") == 600 ]] || fail "the private key is not mode 0600"
expect 0 "second key" "$STAX" key generate --output-prefix "$work/other" --algorithm ed25519

expect 0 "push --sign" "$STAX" push --sign --key "$work/acme.key" examples "$repo/signed:1.0.0" --no-progress
expect 0 "verify" "$STAX" verify "$repo/signed:1.0.0" --key "$work/acme.pub"
grep -q "verified, signed by sha256:" "$work/out.txt" || fail "verify does not name the signer: $(cat "$work/out.txt")"
expect 6 "verify with the wrong key" "$STAX" verify "$repo/signed:1.0.0" --key "$work/other.pub"
grep -q "wrong key" "$work/err.txt" || fail "the wrong key is not the reason: $(cat "$work/err.txt")"

expect 0 "push unsigned" "$STAX" push examples "$repo/unsigned:1.0.0" --no-progress
expect 6 "verify unsigned" "$STAX" verify "$repo/unsigned:1.0.0" --key "$work/acme.pub"
grep -q "no signature" "$work/err.txt" || fail "no signature is not the reason: $(cat "$work/err.txt")"
expect 6 "pull unsigned under require" "$STAX" pull --verify require --key "$work/acme.pub" "$repo/unsigned:1.0.0" -o "$work/pulled" --no-progress
[[ ! -e $work/pulled ]] || fail "a refused pull wrote $work/pulled"
expect 0 "sign after push" "$STAX" sign "$repo/unsigned:1.0.0" --key "$work/acme.key"
expect 0 "verify after sign" "$STAX" verify "$repo/unsigned:1.0.0" --key "$work/acme.pub"

expect 0 "pull signed under require" "$STAX" pull --verify require --key "$work/acme.pub" "$repo/signed:1.0.0" -o "$work/pulled" --no-progress
diff -r examples/skills "$work/pulled" >/dev/null || fail "the pulled tree differs from examples/skills"
expect 0 "copy to a layout" "$STAX" copy "$repo/signed:1.0.0" "oci:$work/layout:1.0.0" --no-progress
expect 0 "verify the copy" "$STAX" verify "oci:$work/layout:1.0.0" --key "$work/acme.pub"

echo "e2e: $passed passed, 0 failed"
