#!/usr/bin/env bash
# End-to-end test of the GitHub Action's shell steps (action/stax-action.sh,
# which action.yml runs) outside GitHub: install from the release archives
# of `make release-snapshot` (served as file:// URLs in GitHub's
# releases/download/vX.Y.Z layout), refuse a tampered archive, build from
# source, log in to docker-registry on a loopback port, and run a publisher's
# push and a consumer's `install --frozen` through the action.
#
# Usage: bash test/e2e/action.sh    (runs make release-snapshot if dist/ has
# no release yet; test/e2e/release.sh leaves one there)
#
# Needs docker-registry (Debian package docker-registry) and curl. It ends
# with "e2e action: N passed, 0 failed", or exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh

passed=0
fail() {
  echo "e2e action: FAIL: $*" >&2
  echo "e2e action: $passed passed, 1 failed"
  exit 1
}
pass() {
  passed=$((passed + 1))
  echo "e2e action: ok: $*"
}

command -v curl >/dev/null || fail "curl is needed (apt-get install curl)"
work=$(mktemp -d)
trap 'stop_registry; rm -rf "$work"' EXIT
export DOCKER_CONFIG="$work/docker" STAX_HOME="$work/stax-home"
unset GITHUB_PATH
action=$PWD/action/stax-action.sh

if [[ ! -f dist/checksums.txt ]]; then
  make --no-print-directory release-snapshot >"$work/release.log" 2>&1 || {
    tail -n 30 "$work/release.log" >&2
    fail "make release-snapshot"
  }
fi
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
[[ -n $version ]] || fail "no version in dist/metadata.json"
mkdir -p "$work/releases/download/v$version"
cp dist/checksums.txt dist/stax_*.tar.gz dist/stax_*.zip "$work/releases/download/v$version/"

# install: the release archive of this platform, checksum verified, added to
# $GITHUB_PATH.
out=$(STAX_RELEASES_URL="file://$work/releases" STAX_VERSION="v$version" STAX_INSTALL_DIR="$work/bin" \
  GITHUB_PATH="$work/github_path" "$action" install 2>&1) || fail "install v$version: $out"
[[ $("$work/bin/stax" version) == "stax $version "* ]] || fail "installed stax is not $version: $("$work/bin/stax" version)"
[[ $(cat "$work/github_path") == "$work/bin" ]] || fail "GITHUB_PATH holds $(cat "$work/github_path")"
pass "installed stax $version from the release archives"

# A tampered archive is refused, and nothing is installed.
cp -r "$work/releases" "$work/tampered"
for archive in "$work/tampered/download/v$version/"stax_*; do printf 'x' >>"$archive"; done
if out=$(STAX_RELEASES_URL="file://$work/tampered" STAX_VERSION="$version" STAX_INSTALL_DIR="$work/bin-tampered" \
  "$action" install 2>&1); then
  fail "a tampered archive was installed: $out"
fi
grep -q 'checksums.txt says' <<<"$out" || fail "the refusal does not name the checksum: $out"
[[ ! -e $work/bin-tampered/stax ]] || fail "the tampered binary was left in place"
pass "a tampered archive is refused: ${out#*stax action: }"

# A version that does not exist fails, saying which.
if out=$(STAX_RELEASES_URL="file://$work/releases" STAX_VERSION="9.9.9" STAX_INSTALL_DIR="$work/bin-none" \
  "$action" install 2>&1); then
  fail "installing a missing version succeeded"
fi
grep -q 'v9.9.9' <<<"$out" || fail "the failure does not name the version: $out"
pass "a missing version fails"

# from-source: go build of the action's own source.
out=$(STAX_FROM_SOURCE=true STAX_SOURCE_DIR="$PWD" STAX_INSTALL_DIR="$work/src-bin" "$action" install 2>&1) ||
  fail "install from source: $out"
"$work/src-bin/stax" version >/dev/null || fail "the stax built from source does not run"
pass "built from source"

start_registry
export STAX_INSTALL_DIR="$work/bin"

# login: the token goes on stdin, is saved for the registry, never printed.
token=e2e-secret-token-$$
out=$(STAX_REGISTRY="127.0.0.1:$port" STAX_USERNAME=ci STAX_TOKEN="$token" "$action" login 2>&1) ||
  registry_fail "login: $out"
grep -q "127.0.0.1:$port" "$DOCKER_CONFIG/config.json" || fail "no credentials saved for 127.0.0.1:$port"
! grep -q "$token" <<<"$out" || fail "the token was printed"
out=$(STAX_REGISTRY="127.0.0.1:$port" STAX_USERNAME=ci STAX_TOKEN= "$action" login 2>&1) || fail "login without a token: $out"
pass "login saves the token without printing it; no token, no login"

# Publisher: validate and push through the action's command.
ref=127.0.0.1:$port/e2e/skills:1.0.0
STAX_COMMAND="validate examples" "$action" run >/dev/null || fail "run validate"
STAX_COMMAND="push examples $ref --no-progress" "$action" run >"$work/push.out" 2>"$work/push.err" ||
  registry_fail "run push: $(cat "$work/push.err")"
digest=$(sed -n 's/.*@\(sha256:[0-9a-f]*\)$/\1/p' "$work/push.out")
[[ -n $digest ]] || fail "push printed no digest: $(cat "$work/push.out")"
pass "publisher: validate and push $ref ($digest)"

# Consumer: a project locks the package, then CI installs exactly the lock.
project=$work/project
mkdir -p "$project"
cat >"$project/stax.yaml" <<YAML
name: e2e-project
version: 0.1.0
install:
  sources: ["$ref"]
  runtimes: [claude-code]
YAML
"$work/bin/stax" install --dir "$project" --no-progress >/dev/null || registry_fail "stax install to write the lock"
grep -q "$digest" "$project/stax.lock" || fail "stax.lock does not pin $digest"
rm -rf "$project/.claude"
STAX_COMMAND="install --frozen --dir $project --no-progress" "$action" run >/dev/null || registry_fail "run install --frozen"
diff -r examples/skills "$project/.claude/skills" -x .stax-install.json >/dev/null ||
  fail "install --frozen did not install the locked skills"
pass "consumer: install --frozen from stax.lock"

# A command is split into words only: no expansion, no globbing, no injection.
if STAX_COMMAND='version $(touch '"$work"'/injected) *' "$action" run >/dev/null 2>&1; then :; fi
[[ ! -e $work/injected ]] || fail "STAX_COMMAND was evaluated by a shell"
pass "the command is not evaluated by a shell"

echo "e2e action: $passed passed, 0 failed"
