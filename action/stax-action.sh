#!/usr/bin/env bash
# The shell steps of the stax GitHub Action (action.yml), kept here so that
# test/e2e/action.sh runs them outside GitHub. Each step is a subcommand
# configured by environment variables, which action.yml sets from its inputs
# (never by splicing inputs into the script, so an input cannot inject code).
#
#   install  STAX_VERSION (X.Y.Z, vX.Y.Z or "latest") from the release
#            archives under STAX_RELEASES_URL, checksum verified; or, with
#            STAX_FROM_SOURCE=true, `go build` of STAX_SOURCE_DIR. Installs
#            into STAX_INSTALL_DIR and adds it to $GITHUB_PATH when set.
#   login    STAX_REGISTRY with STAX_USERNAME and the token in STAX_TOKEN
#            (passed on stdin, never on a command line). Skipped without a token.
#   run      stax with the words of STAX_COMMAND (split on whitespace; no
#            quoting, globbing or expansion), e.g. "install --frozen".
set -euo pipefail

die() {
  echo "::error::stax action: $*" >&2
  exit 1
}

stax_bin() {
  local dir=${STAX_INSTALL_DIR:?STAX_INSTALL_DIR is not set}
  if [[ -x $dir/stax ]]; then echo "$dir/stax"; elif [[ -x $dir/stax.exe ]]; then echo "$dir/stax.exe"; else
    die "stax is not installed in $dir: run the install step first"
  fi
}

platform() {
  local os arch
  case $(uname -s) in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) die "no stax release for $(uname -s)" ;;
  esac
  case $(uname -m) in
  x86_64 | amd64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no stax release for $(uname -m)" ;;
  esac
  echo "${os}_${arch}"
}

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}

install_release() {
  local base=${STAX_RELEASES_URL:-https://github.com/stax-dev/stax/releases}
  local version=${STAX_VERSION:-latest} plat ext name want got
  if [[ $version == latest ]]; then
    # GitHub redirects releases/latest to releases/tag/vX.Y.Z.
    version=$(curl -fsSLI -o /dev/null -w '%{url_effective}' "$base/latest") || die "cannot find the latest release at $base/latest"
    version=${version##*/}
  fi
  version=${version#v}
  [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] || die "version \"$version\" is not X.Y.Z"
  plat=$(platform)
  ext=tar.gz
  [[ $plat == windows_* ]] && ext=zip
  name=stax_${version}_${plat}.${ext}
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  curl -fsSL -o "$tmp/$name" "$base/download/v$version/$name" || die "cannot download $base/download/v$version/$name"
  curl -fsSL -o "$tmp/checksums.txt" "$base/download/v$version/checksums.txt" || die "cannot download the checksums of v$version"
  want=$(awk -v n="$name" '$2 == n { print $1 }' "$tmp/checksums.txt")
  [[ -n $want ]] || die "checksums.txt of v$version does not list $name"
  got=$(sha256 "$tmp/$name")
  [[ $got == "$want" ]] || die "$name has SHA-256 $got, but checksums.txt says $want: not installing it"
  mkdir -p "$STAX_INSTALL_DIR"
  if [[ $ext == zip ]]; then
    unzip -q -o "$tmp/$name" stax.exe -d "$STAX_INSTALL_DIR"
  else
    tar -xzf "$tmp/$name" -C "$STAX_INSTALL_DIR" stax
  fi
}

install_source() {
  local src=${STAX_SOURCE_DIR:?STAX_SOURCE_DIR is not set}
  command -v go >/dev/null || die "building from source needs Go (actions/setup-go)"
  mkdir -p "$STAX_INSTALL_DIR"
  (cd "$src" && go build -trimpath -ldflags "-X main.version=$(git describe --tags --always 2>/dev/null || echo source)" \
    -o "$STAX_INSTALL_DIR/stax" ./cmd/stax) || die "go build of $src failed"
}

cmd_install() {
  : "${STAX_INSTALL_DIR:?STAX_INSTALL_DIR is not set}"
  if [[ ${STAX_FROM_SOURCE:-false} == true ]]; then install_source; else install_release; fi
  [[ -z ${GITHUB_PATH:-} ]] || echo "$STAX_INSTALL_DIR" >>"$GITHUB_PATH"
  "$(stax_bin)" version
}

cmd_login() {
  if [[ -z ${STAX_TOKEN:-} ]]; then
    echo "stax action: no token, not logging in to ${STAX_REGISTRY:-the registry}"
    return 0
  fi
  [[ -n ${STAX_REGISTRY:-} ]] || die "login needs a registry"
  [[ -n ${STAX_USERNAME:-} ]] || die "login to $STAX_REGISTRY needs a username"
  printf '%s' "$STAX_TOKEN" | "$(stax_bin)" login "$STAX_REGISTRY" -u "$STAX_USERNAME" --password-stdin
}

cmd_run() {
  local -a args
  read -r -a args <<<"${STAX_COMMAND:-}"
  [[ ${#args[@]} -gt 0 ]] || return 0
  "$(stax_bin)" "${args[@]}"
}

case ${1:-} in
install) cmd_install ;;
login) cmd_login ;;
run) cmd_run ;;
*) die "usage: stax-action.sh install|login|run" ;;
esac
