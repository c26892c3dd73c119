# shellcheck shell=bash
# Sourced by the scripts that drive other clients. tool NAME prints the
# absolute path of NAME (cosign, regctl or oras) at the version the
# Makefile pins, built by make into bin/tools on first use; tool_version
# NAME prints that version.

tools_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)

tool_version() {
  sed -n "s/^${1^^}_VERSION *:= *//p" "$tools_root/Makefile"
}

tool() {
  local path
  path=$tools_root/bin/tools/$1-$(tool_version "$1")/$1
  [[ -x $path ]] || make -s -C "$tools_root" --no-print-directory "$path" >&2 || return 1
  echo "$path"
}
