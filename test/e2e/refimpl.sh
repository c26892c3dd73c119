#!/usr/bin/env bash
# End-to-end test of packages as the reference implementation of stax (the
# TypeScript stax CLI) writes them, pushed with oras to docker-registry
# (CNCF distribution 2.8) on a loopback port: labelled as agents, a config of
# kind agent listing no skills, layers without annotations, dependencies in
# the packages layer by tag only (no digest), and rules, MCP server configs
# and a prompt beside the skills. stax install and pull must install the
# dependency's skills and lock it by digest, name once the layers they skip,
# inspect must list them and the layer's skills, and a dependency the
# registry does not have must fail with exit 4 naming it.
#
# Usage: STAX=bin/stax bash test/e2e/refimpl.sh
#
# Like registry.sh, it needs the docker-registry binary ($DOCKER_REGISTRY
# overrides its path) and a built stax ($STAX, default bin/stax); and oras
# ($ORAS; by default the version the Makefile pins, which make builds into
# bin/tools on first use: cache bin/tools and the Go build cache to skip
# that). It ends with "e2e: 4 passed, 0 failed", or exits
# non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=lib/tools.sh
source test/e2e/lib/tools.sh

# shellcheck source=lib/registry.sh
source test/e2e/lib/registry.sh
stax_registry_session
host=127.0.0.1:$port

ORAS=${ORAS:-$(tool oras)} || fail "cannot build oras from the Go module proxy (make e2e-tools)"
echo "e2e: $("$ORAS" version | head -n 1)"

# targz DIR: DIR's files as the family's tar layers are written: sorted,
# ustar, mtime 0, owner 0, no gzip name or time.
targz() {
  (cd "$1" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
    tar --no-recursion --format=ustar --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -T -) | gzip -n -6
}

# blob FILE MEDIATYPE: pushes FILE to $repo, prints its descriptor.
blob() {
  "$ORAS" blob push --plain-http "$host/$repo" "$1" >/dev/null 2>>"$work/oras.log" ||
    fail "oras blob push $1 (see $work/oras.log)"
  printf '{"digest":"sha256:%s","mediaType":"%s","size":%s}' \
    "$(sha256sum "$1" | cut -d' ' -f1)" "$2" "$(wc -c <"$1")"
}

# skill DIR NAME: a skill named NAME under DIR.
skill() {
  mkdir -p "$1/$2"
  printf -- '---\nname: %s\ndescription: The %s skill. Use when testing other writers.\n---\nDo %s.\n' "$2" "$2" "$2" >"$1/$2/SKILL.md"
}

# refimpl REPO:TAG NAME DEPS SKILL...: pushes, as the reference
# implementation does, an agent artifact with the skills named (none:
# no skills layer), a packages layer listing DEPS (space-separated
# references, none when empty) by reference and kind only, and rules, MCP
# server configs and a prompt; prints its manifest digest.
refimpl() {
  local tag=${1#*:} name=$2 deps=$3 dir=$work/$2 layers=() entries=() d
  repo=${1%%:*}
  shift 3
  mkdir -p "$dir/skills" "$dir/rules"
  printf 'Never force-push to main.\n' >"$dir/rules/no-force-push.md"
  targz "$dir/rules" >"$dir/rules.tar.gz"
  printf '{"servers":{"github":{"args":["mcp"],"command":"gh"}}}' >"$dir/mcp.json"
  printf 'You are a careful release engineer.\n' >"$dir/prompt.md"
  # In the reference implementation's order: knowledge, rules, skills,
  # MCP, secrets, packages, ..., prompt.
  layers+=("$(blob "$dir/rules.tar.gz" application/vnd.stax.rules.v1.tar+gzip)")
  if (($# > 0)); then
    for s in "$@"; do skill "$dir/skills" "$s"; done
    targz "$dir/skills" >"$dir/skills.tar.gz"
    layers+=("$(blob "$dir/skills.tar.gz" application/vnd.stax.skills.v1.tar+gzip)")
  fi
  layers+=("$(blob "$dir/mcp.json" application/vnd.stax.mcp.v1+json)")
  if [[ -n $deps ]]; then
    for d in $deps; do entries+=("{\"kind\":\"package\",\"ref\":\"$d\"}"); done
    printf '{"packages":[%s],"specVersion":"1.0.0"}' "$(IFS=,; echo "${entries[*]}")" >"$dir/packages.json"
    layers+=("$(blob "$dir/packages.json" application/vnd.stax.packages.v1+json)")
  fi
  layers+=("$(blob "$dir/prompt.md" application/vnd.stax.prompt.v1+markdown)")
  printf '{"adapter":{"adapterVersion":"1.0.0","runtime":"claude-code","type":"claude-code"},"description":"%s","kind":"agent","name":"%s","specVersion":"1.0.0","version":"1.0.0"}' \
    "$name, as the reference implementation writes it" "$name" >"$dir/config.json"
  printf '{"annotations":{"dev.stax.adapter.runtime":"claude-code","dev.stax.adapter.type":"claude-code","dev.stax.spec.version":"1.0.0","org.opencontainers.image.created":"1970-01-01T00:00:00.000Z","org.opencontainers.image.title":"%s","org.opencontainers.image.version":"1.0.0"},"artifactType":"application/vnd.stax.agent.v1","config":%s,"layers":[%s],"mediaType":"application/vnd.oci.image.manifest.v1+json","schemaVersion":2}' \
    "$name" "$(blob "$dir/config.json" application/vnd.stax.config.v1+json)" "$(IFS=,; echo "${layers[*]}")" >"$dir/manifest.json"
  "$ORAS" manifest push --plain-http --media-type application/vnd.oci.image.manifest.v1+json \
    "$host/$repo:$tag" "$dir/manifest.json" >/dev/null 2>>"$work/oras.log" || fail "oras manifest push $name (see $work/oras.log)"
  echo "sha256:$(sha256sum "$dir/manifest.json" | cut -d' ' -f1)"
}

# skills_in DIR: the skill directories under DIR, comma-separated.
skills_in() {
  find "$1" -mindepth 2 -maxdepth 2 -name SKILL.md -printf '%h\n' | xargs -r -n1 basename | sort | paste -sd,
}

base=$(refimpl e2e/base:1 base "" lint test)
agent=$host/e2e/agent:1
refimpl e2e/agent:1 agent "$host/e2e/base:1" deploy review >/dev/null
warning="warning: $agent carries rules, MCP server configs, prompt, which stax does not install: stax installs skills only"

# 1. install: the dependency's skills too, locked by digest; the skipped
# layers named once per package.
proj=$work/project
mkdir -p "$proj"
"$STAX" install "$agent" --dir "$proj" --runtime claude-code 2>"$work/install.err" ||
  { cat "$work/install.err" >&2; fail "stax install of a reference-implementation package"; }
[[ $(skills_in "$proj/.claude/skills") == deploy,lint,review,test ]] ||
  fail "install installed $(skills_in "$proj/.claude/skills"), want deploy,lint,review,test"
grep -q "$base" "$proj/stax.lock" || fail "stax.lock does not record e2e/base:1 at $base: $(cat "$proj/stax.lock")"
[[ $(grep -cxF "$warning" "$work/install.err") == 1 ]] ||
  fail "install does not warn once: $warning; it said: $(cat "$work/install.err")"
"$STAX" install --frozen --dir "$proj" --runtime claude-code 2>"$work/frozen.err" ||
  { cat "$work/frozen.err" >&2; fail "stax install --frozen"; }
echo "e2e: pass: install resolves the dependency listed without a digest, locks it and names the skipped layers"

# 2. pull -o: the same skills, the same warning.
"$STAX" pull "$agent" -o "$work/out" --no-progress 2>"$work/pull.err" ||
  { cat "$work/pull.err" >&2; fail "stax pull -o"; }
[[ $(skills_in "$work/out") == deploy,lint,review,test ]] || fail "pull wrote $(skills_in "$work/out")"
[[ $(grep -cxF "$warning" "$work/pull.err") == 1 ]] || fail "pull does not warn once: $(cat "$work/pull.err")"
echo "e2e: pass: pull -o writes the dependency's skills and names the skipped layers"

# 3. inspect: the layer's skills and the layers not installed.
"$STAX" inspect "$agent" >"$work/inspect.out" 2>/dev/null || fail "stax inspect"
grep -q '^Skills (2):' "$work/inspect.out" || fail "inspect does not list the layer's skills: $(cat "$work/inspect.out")"
for kind in rules "MCP server configs" prompt; do
  grep -q "^  $kind  application/vnd.stax" "$work/inspect.out" || fail "inspect does not list the $kind layer: $(cat "$work/inspect.out")"
done
echo "e2e: pass: inspect lists the layer's skills and the layers stax does not install"

# 4. A dependency the registry does not have: exit 4 naming it.
refimpl e2e/broken:1 broken "$host/e2e/gone:1" deploy >/dev/null
code=0
"$STAX" install "$host/e2e/broken:1" --dir "$work/broken" --runtime claude-code 2>"$work/broken.err" || code=$?
[[ $code == 4 ]] && grep -q "$host/e2e/gone:1" "$work/broken.err" ||
  fail "install with a missing dependency: exit $code, want 4 naming $host/e2e/gone:1: $(cat "$work/broken.err")"
echo "e2e: pass: a missing dependency exits 4 naming it"

echo "e2e: 4 passed, 0 failed"
