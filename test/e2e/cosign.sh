#!/usr/bin/env bash
# End-to-end interop of stax and cosign signatures against Debian's
# docker-registry (distribution 2.8, no referrers API: both tools go
# through the referrers tag schema): what stax signs cosign verifies, as a
# signature and as an attestation of the files; what cosign signs (a
# Sigstore bundle, cosign v3's default format) stax verifies; both after a
# stax copy to another repository; a wrong key fails in both. With regctl
# and oras, a layout stax signs into or copies into lists its signatures
# where each looks. Last, pkg/signature's TestCosignInterop runs the same
# cosign against the in-process registries of the Go tests, with the
# referrers API and without.
#
# Usage: STAX=bin/stax [COSIGN=path/to/cosign] [REGCTL=path/to/regctl] [ORAS=path/to/oras] bash test/e2e/cosign.sh
# (by default the versions the Makefile pins, built into bin/tools on first use)
#
# make e2e-tools builds the pinned cosign, regctl and oras into bin/tools;
# the defaults are where it puts them. Keys only, offline: cosign signs with
# --use-signing-config=false --tlog-upload=false and verifies with
# --insecure-ignore-tlog=true, and a proxy that refuses every connection
# makes any attempt to reach Sigstore's services fail rather than pass
# unnoticed. Each case is a function; the script ends with
# "e2e: N passed, 0 failed", or exits non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

# shellcheck source=lib/tools.sh
source test/e2e/lib/tools.sh
COSIGN=${COSIGN:-$(tool cosign)}
REGCTL=${REGCTL:-$(tool regctl)}
ORAS=${ORAS:-$(tool oras)}
# The cases run in other directories: the tools' paths are made absolute.
for name in COSIGN REGCTL ORAS; do
  [[ ! -e ${!name} ]] || printf -v "$name" '%s' "$(realpath "${!name}")"
done

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
stax_registry_session
[[ -x $COSIGN ]] || fail "no cosign at $COSIGN (make e2e-tools, or set COSIGN)"
command -v jq >/dev/null || fail "jq is needed to read cosign's output"
export STAX_PASSWORD=e2e-password COSIGN_PASSWORD=e2e-password
export HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1
export TUF_ROOT=$work/sigstore
repo=127.0.0.1:$port/e2e
predicate=https://stax.dev/attestation/package/v1


cosign_verify() { "$COSIGN" verify --key "$1" --insecure-ignore-tlog=true --allow-http-registry "$2"; }
cosign_verify_attestation() {
  "$COSIGN" verify-attestation --key "$1" --type "$predicate" --insecure-ignore-tlog=true --allow-http-registry "$2"
}
cosign_sign() {
  "$COSIGN" sign --key "$1" --use-signing-config=false --tlog-upload=false --allow-http-registry --yes "$2"
}
# digest_ref REF: REF by the digest of its manifest, as cosign wants it.
digest_ref() { echo "${1%:*}@$("$STAX" inspect "$1" --output json | jq -r .descriptor.digest)"; }

# Keys: stax's, cosign's, and one that signed nothing.
expect 0 "stax key generate" "$STAX" key generate --output-prefix "$work/stax"
expect 0 "other key" "$STAX" key generate --output-prefix "$work/other"
(cd "$work" && "$COSIGN" generate-key-pair --output-key-prefix cosign >/dev/null 2>&1) ||
  fail "cosign generate-key-pair"

case_stax_signs_cosign_verifies() {
  expect 0 "stax push --sign" "$STAX" push --sign --key "$work/stax.key" examples "$repo/by-stax:1.0.0" --no-progress
  expect 0 "cosign verify, stax's signature" cosign_verify "$work/stax.pub" "$repo/by-stax:1.0.0"
  expect 0 "cosign verify-attestation, stax's statement" cosign_verify_attestation "$work/stax.pub" "$repo/by-stax:1.0.0"
  jq -r .payload "$work/out.txt" | base64 -d | jq -e --arg p "$predicate" \
    '.predicateType == $p and ([.predicate.skills[].files[].path] | index("SKILL.md") != null)' >/dev/null ||
    fail "cosign verify-attestation does not show the statement with the files: $(cat "$work/out.txt")"
  expect 0 "stax verify, stax's signature" "$STAX" verify "$repo/by-stax:1.0.0" --key "$work/stax.pub"
}

case_cosign_signs_stax_verifies() {
  expect 0 "stax push" "$STAX" push examples "$repo/by-cosign:1.0.0" --no-progress
  expect 0 "cosign sign" cosign_sign "$work/cosign.key" "$(digest_ref "$repo/by-cosign:1.0.0")"
  expect 0 "cosign verify, its own signature" cosign_verify "$work/cosign.pub" "$repo/by-cosign:1.0.0"
  expect 0 "stax verify, cosign's signature" "$STAX" verify "$repo/by-cosign:1.0.0" --key "$work/cosign.pub"
  expect 0 "pull under require, cosign's signature" "$STAX" pull --verify require --key "$work/cosign.pub" \
    "$repo/by-cosign:1.0.0" -o "$work/pulled-by-cosign" --no-progress
}

# Both sign one package: each tool finds the signature of each key.
case_both_sign() {
  expect 0 "stax push --sign" "$STAX" push --sign --key "$work/stax.key" examples "$repo/by-both:1.0.0" --no-progress
  expect 0 "cosign sign" cosign_sign "$work/cosign.key" "$(digest_ref "$repo/by-both:1.0.0")"
  local key
  for key in stax cosign; do
    expect 0 "cosign verify, $key key, both signatures" cosign_verify "$work/$key.pub" "$repo/by-both:1.0.0"
    expect 0 "stax verify, $key key, both signatures" "$STAX" verify "$repo/by-both:1.0.0" --key "$work/$key.pub"
  done
}

case_copy_keeps_both() {
  local name
  for name in by-stax by-cosign; do
    expect 0 "stax copy $name" "$STAX" copy "$repo/$name:1.0.0" "$repo/copies/$name:1.0.0" --no-progress
  done
  expect 0 "cosign verify the copy, stax's signature" cosign_verify "$work/stax.pub" "$repo/copies/by-stax:1.0.0"
  expect 0 "cosign verify-attestation the copy" cosign_verify_attestation "$work/stax.pub" "$repo/copies/by-stax:1.0.0"
  expect 0 "stax verify the copy, stax's signature" "$STAX" verify "$repo/copies/by-stax:1.0.0" --key "$work/stax.pub"
  expect 0 "cosign verify the copy, cosign's signature" cosign_verify "$work/cosign.pub" "$repo/copies/by-cosign:1.0.0"
  expect 0 "stax verify the copy, cosign's signature" "$STAX" verify "$repo/copies/by-cosign:1.0.0" --key "$work/cosign.pub"
}

case_wrong_key_fails() {
  local name
  for name in by-stax by-cosign copies/by-stax copies/by-cosign; do
    expect fail "cosign verify $name with a wrong key" cosign_verify "$work/other.pub" "$repo/$name:1.0.0"
    expect 6 "stax verify $name with a wrong key" "$STAX" verify "$repo/$name:1.0.0" --key "$work/other.pub"
    grep -q "wrong key" "$work/err.txt" || fail "stax verify $name: the wrong key is not the reason: $(cat "$work/err.txt")"
  done
  expect fail "cosign verify-attestation with a wrong key" cosign_verify_attestation "$work/other.pub" "$repo/by-stax:1.0.0"
}

# referrers TOOL LAYOUT TAG: the digests TOOL (regctl or oras) lists as
# referrers of the layout's TAG, one a line.
referrers() {
  case $1 in
    regctl) "$REGCTL" artifact list "ocidir://$2:$3" --format '{{range .Descriptors}}{{println .Digest}}{{end}}' ;;
    oras) "$ORAS" discover --oci-layout "$2:$3" --format json | jq -r '.referrers[].digest' ;;
  esac
}

# check_layout_referrers LAYOUT N: regctl and oras, those there are, each
# list N referrers of the layout's 1.0.0, each once.
check_layout_referrers() {
  local tool bin
  for tool in regctl oras; do
    bin=$REGCTL
    [[ $tool == oras ]] && bin=$ORAS
    if [[ ! -x $bin ]]; then
      echo "e2e: no $tool at $bin: its layout check skipped"
      continue
    fi
    expect 0 "$tool lists the referrers of $1" referrers "$tool" "$1" 1.0.0
    [[ $(grep -c . "$work/out.txt") == "$2" && $(sort -u "$work/out.txt" | grep -c .) == "$2" ]] ||
      fail "$tool lists the referrers of $1 as [$(cat "$work/out.txt")], want $2, each once"
  done
}

# A layout signed into, and one copied into, list their signatures where
# regctl (the referrers tag schema) and oras (the manifests) look.
case_layout_lists_signatures() {
  local layout=$work/layout copied=$work/copied
  expect 0 "push to a layout" "$STAX" push examples "oci:$layout:1.0.0" --no-progress
  expect 0 "sign in the layout" "$STAX" sign "oci:$layout:1.0.0" --key "$work/stax.key"
  expect 0 "sign in the layout again" "$STAX" sign "oci:$layout:1.0.0" --key "$work/stax.key"
  check_layout_referrers "$layout" 2
  expect 0 "stax verify the layout" "$STAX" verify "oci:$layout:1.0.0" --key "$work/stax.pub"

  expect 0 "copy to a layout" "$STAX" copy "$repo/by-both:1.0.0" "oci:$copied:1.0.0" --no-progress
  check_layout_referrers "$copied" 2
  local key
  for key in stax cosign; do
    expect 0 "stax verify the copied layout, $key key" "$STAX" verify "oci:$copied:1.0.0" --key "$work/$key.pub"
  done
}

# The registries of stax's Go tests, one with the referrers API
# (go-containerregistry's) and one without (distribution v3), in process:
# pkg/signature's TestCosignInterop runs this cosign against them.
case_in_process_registries() {
  command -v go >/dev/null || fail "go is needed to run TestCosignInterop"
  expect 0 "TestCosignInterop" env STAX_TEST_COSIGN="$(cd "$(dirname "$COSIGN")" && pwd)/$(basename "$COSIGN")" \
    go test -count=1 -run '^TestCosignInterop$' ./pkg/signature
  grep -q '^ok' "$work/out.txt" || fail "TestCosignInterop: $(cat "$work/out.txt")"
}

case_stax_signs_cosign_verifies
case_cosign_signs_stax_verifies
case_both_sign
case_copy_keeps_both
case_wrong_key_fails
case_layout_lists_signatures
case_in_process_registries

echo "e2e: $passed passed, 0 failed"
