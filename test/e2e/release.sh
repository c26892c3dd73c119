#!/usr/bin/env bash
# End-to-end test of the release build: `make release-snapshot` (GoReleaser,
# built from source through the Go module proxy on first use) writes the
# archives of every platform with checksums and SBOMs; the linux/amd64
# binary runs; and a second build of the same commit from a clone at another
# path gives the same checksums, byte for byte.
#
# Usage: bash test/e2e/release.sh        (from a clean checkout: the second
# build is a clone of HEAD, so uncommitted changes would make them differ)
#
# Slow the first time (GoReleaser is compiled, six targets cross-compiled);
# the second build reuses the Go build cache, so it costs links and archives.
# It ends with "e2e release: N passed, 0 failed", or exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/../.."

passed=0
fail() {
  echo "e2e release: FAIL: $*" >&2
  echo "e2e release: $passed passed, 1 failed"
  exit 1
}
pass() {
  passed=$((passed + 1))
  echo "e2e release: ok: $*"
}
elapsed() { echo "$((SECONDS - $1))s"; }

# What the build reads must be committed: the comparison build is a clone of
# HEAD. (Other files, such as what other e2e scripts leave, do not matter.)
changed=$(git status --porcelain -- '*.go' go.mod go.sum .goreleaser.yaml Makefile)
[[ -z $changed ]] ||
  fail "uncommitted changes to what the build reads; the comparison build is a clone of HEAD: commit or stash first:
$changed"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

t=$SECONDS
make --no-print-directory release-snapshot >"$work/build1.log" 2>&1 || {
  tail -n 30 "$work/build1.log" >&2
  fail "make release-snapshot"
}
echo "e2e release: make release-snapshot took $(elapsed $t)"

# Every platform has its archive and SBOM, and checksums.txt covers them all.
for platform in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64; do
  ext=tar.gz
  [[ $platform == windows_* ]] && ext=zip
  compgen -G "dist/stax_*_${platform}.${ext}" >/dev/null || fail "no archive for $platform in dist/"
  compgen -G "dist/stax_*_${platform}.cdx.json" >/dev/null || fail "no SBOM for $platform in dist/"
done
[[ $(wc -l <dist/checksums.txt) -eq 12 ]] || fail "checksums.txt lists $(wc -l <dist/checksums.txt) files, not 6 archives and 6 SBOMs"
(cd dist && sha256sum --quiet -c checksums.txt) || fail "checksums.txt does not match the files"
pass "6 archives, 6 SBOMs, checksums.txt verifies"

# The linux/amd64 binary, out of its archive, is static and runs.
mkdir "$work/unpacked"
tar -xzf dist/stax_*_linux_amd64.tar.gz -C "$work/unpacked"
[[ $(ls "$work/unpacked") == stax ]] || fail "the archive holds more than the binary: $(ls "$work/unpacked")"
out=$("$work/unpacked/stax" version --output json) || fail "stax version from the archive"
grep -q '"version": "0\.0\.[0-9]*-snapshot"' <<<"$out" || fail "version not stamped: $out"
grep -q '"platform": "linux/amd64"' <<<"$out" || fail "not a linux/amd64 binary: $out"
if command -v file >/dev/null; then
  file "$work/unpacked/stax" | grep >/dev/null 'statically linked' || fail "not static: $(file "$work/unpacked/stax")"
fi
grep -q '"name": "github.com/spf13/cobra"' dist/stax_*_linux_amd64.cdx.json || fail "the SBOM does not list cobra"
pass "the linux/amd64 binary is static and runs: $(tr -d '\n' <<<"$out")"

# A second build, of the same commit in a clone at another path: the same
# checksums (binaries, archives and SBOMs), so the build is reproducible.
git clone --quiet --no-hardlinks . "$work/clone"
t=$SECONDS
make --no-print-directory -C "$work/clone" release-snapshot TOOLS="$PWD/bin/tools" >"$work/build2.log" 2>&1 || {
  tail -n 30 "$work/build2.log" >&2
  fail "make release-snapshot in a clone"
}
echo "e2e release: the second build took $(elapsed $t)"
diff dist/checksums.txt "$work/clone/dist/checksums.txt" >&2 ||
  fail "two builds of the same commit differ (above): the release is not reproducible"
pass "a second build from $work/clone gives identical checksums"

echo "e2e release: $passed passed, 0 failed"
