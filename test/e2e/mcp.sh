#!/usr/bin/env bash
# End-to-end test of `stax mcp` with an independent MCP client: the MCP
# Inspector's CLI mode (npm @modelcontextprotocol/inspector) starts the stax
# binary over stdio, lists and calls its tools, lists and reads its
# resources; jq checks what comes back. Then a host of the skills extension
# (SEP-2640) written with the MCP working group's SDK, @olaservo/ext-skills on
# the TypeScript MCP client (test/e2e/skills-client.mjs), lists, gets, reads
# and verifies every file over stdio and over HTTP. The Go tests use the Go
# SDK's client.
#
# Usage: STAX=bin/stax bash test/e2e/mcp.sh
#
# It installs nothing: it needs a built stax ($STAX, default bin/stax), jq,
# node, the inspector ($MCP_INSPECTOR, default .ci/node/bin/mcp-inspector,
# where .ci/run installs it; else mcp-inspector on $PATH) and the SDK's
# node_modules ($MCP_SKILLS_MODULES, default .ci/node-skills/node_modules,
# where .ci/run installs them). It ends with "e2e: N passed, 0 failed", or
# exits non-zero with the reason.
set -euo pipefail
cd "$(dirname "$0")/../.."

STAX=${STAX:-bin/stax}
INSPECTOR=${MCP_INSPECTOR:-.ci/node/bin/mcp-inspector}
[[ -x $INSPECTOR ]] || INSPECTOR=$(command -v mcp-inspector || true)

passed=0
fail() {
  echo "e2e: FAIL: $*" >&2
  echo "e2e: $passed passed, 1 failed"
  exit 1
}
pass() {
  passed=$((passed + 1))
  echo "ok: $*"
}

[[ -x $STAX ]] || fail "no stax binary at $STAX (make build, or set STAX)"
SKILLS_MODULES=${MCP_SKILLS_MODULES:-.ci/node-skills/node_modules}
[[ -d $SKILLS_MODULES/@olaservo/ext-skills ]] || fail "no @olaservo/ext-skills in $SKILLS_MODULES (see .ci/run, or set MCP_SKILLS_MODULES)"
[[ -n $INSPECTOR && -x $INSPECTOR ]] || fail "no MCP Inspector (npm install --prefix .ci/node @modelcontextprotocol/inspector, or set MCP_INSPECTOR)"
command -v jq >/dev/null || fail "no jq (apt-get install jq)"
STAX=$(cd "$(dirname "$STAX")" && pwd)/$(basename "$STAX")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
project=$work/project
home=$work/home

# skill DIR NAME DESCRIPTION BODY writes DIR/NAME/SKILL.md.
skill() {
  mkdir -p "$1/$2"
  printf -- '---\nname: %s\ndescription: %s\n---\n%s\n' "$2" "$3" "$4" >"$1/$2/SKILL.md"
}
skills=$project/.claude/skills
skill "$skills" review "Review a pull request the project way" 'Review PR $ARGUMENTS[0] in ${STAX_WORKSPACE}.'
mkdir -p "$skills/review/references"
printf '# Rules\n' >"$skills/review/references/rules.md"
skill "$skills" postmortem "Write an incident postmortem" 'Write the postmortem of $ARGUMENTS.'
printf '## Terminology\n\nSay customer impact.\n' >"$skills/postmortem/CALIBRATION.md"
printf '## Example: outage\n\n### Input\nINC-1\n\n### Output\nA timeline.\n' >"$skills/postmortem/EXAMPLES.md"
printf -- '---\nversion: 1.0.0\ncontributors: 2\nlastUpdated: 2026-05-19\n---\n## What worked\n\n- Old lesson, @ann, 2026-01-02\n- New lesson, @bob, 2026-05-19\n' \
  >"$skills/postmortem/MEMORY.md"
skill "$skills" big "A skill too big for the budget" "$(printf 'Step. %.0s' {1..200})"
mkdir -p "$skills/broken"
printf -- '---\nname: broken\ndescription: Use it: when asked\n---\nbody\n' >"$skills/broken/SKILL.md"
skill "$home/.claude/skills" review "Review a pull request the user way" user
skill "$home/.claude/skills" deploy "Deploy the service" Deploy.

# A skill stax installs from a package, whose entries carry its provenance.
mkdir -p "$work/tools/skills/lint"
printf 'name: tools\nversion: 1.2.0\n' >"$work/tools/stax.yaml"
skill "$work/tools/skills" lint "Lint the code" Lint.
HOME=$home STAX_HOME=$work/stax-home "$STAX" install --dir "$project" --runtime claude-code "$work/tools" >/dev/null ||
  fail "stax install of the tools package"

# The server command, as an agent's configuration would name it.
cat >"$work/stax-mcp" <<EOF
#!/bin/sh
HOME='$home' STAX_HOME='$work/stax-home' exec '$STAX' mcp --dir '$project' --budget 60
EOF
chmod +x "$work/stax-mcp"

# inspect ARGS... runs one request through the inspector; its JSON is in $out.
inspect() {
  if ! out=$("$INSPECTOR" --cli "$work/stax-mcp" "$@" 2>"$work/inspector.err"); then
    cat "$work/inspector.err" >&2
    fail "mcp-inspector --cli $*"
  fi
}

# check NAME [JQ-OPTIONS...] EXPRESSION: the jq expression must be true of
# $out.
check() {
  local name=$1
  shift
  if ! jq -e "$@" <<<"$out" >/dev/null; then
    echo "$out" | head -c 4000 >&2
    fail "$name"
  fi
  pass "$name"
}

inspect --method tools/list
check "tools/list has Skill and ListSkills" '[.tools[].name] | sort == ["ListSkills", "Skill"]'
check "the Skill tool lists every skill, the project's review shadowing the user's" \
  '.tools[] | select(.name == "Skill") | .description |
   contains("- deploy: Deploy the service\n") and contains("- postmortem: Write an incident postmortem\n") and
   contains("- review: Review a pull request the project way\n") and (contains("user way") | not) and (contains("broken") | not)'
check "the Skill tool takes name and arguments" \
  '.tools[] | select(.name == "Skill") | .inputSchema | (.required == ["name"]) and (.properties | has("arguments"))'

inspect --method tools/call --tool-name Skill --tool-arg name=review --tool-arg arguments=42
check "Skill review substitutes \$ARGUMENTS[0] and \${STAX_WORKSPACE}" \
  --arg p "$project" '(.isError | not) and (.content[0].text | contains("Review PR 42 in \($p).\n"))'

inspect --method tools/call --tool-name Skill --tool-arg name=postmortem --tool-arg arguments=INC-42
check "Skill postmortem loads SKILL.md, CALIBRATION.md, EXAMPLES.md, then MEMORY.md newest first" \
  '(.isError | not) and (.content[0].text | test("Write the postmortem of INC-42\\.[\\s\\S]*customer impact[\\s\\S]*Example: outage[\\s\\S]*New lesson[\\s\\S]*Old lesson"))'

inspect --method tools/call --tool-name Skill --tool-arg name=big
check "Skill big is refused with the reason, over a budget of 60 tokens" \
  '.isError == true and (.content[0].text | contains("budget of 60 tokens") and (contains("Step.") | not))'

inspect --method tools/call --tool-name ListSkills
check "ListSkills names the skill that does not parse, with file and line" \
  --arg f "$skills/broken/SKILL.md" '.structuredContent.unloadable == [.structuredContent.unloadable[0]] and
   (.structuredContent.unloadable[0] | .file == $f and .line == 3 and .key == "broken")'

inspect --method tools/call --tool-name ListSkills --tool-arg query=deploy
check "ListSkills with a query" '[.structuredContent.skills[].name] == ["deploy"]'

inspect --method resources/list
check "resources/list has the skills' files with MIME types" \
  '[.resources[] | select(.uri == "skill://review/references/rules.md" and .mimeType == "text/markdown")] | length == 1'

inspect --method resources/read --uri skill://review/references/rules.md
check "resources/read returns the file" '.contents[0].text == "# Rules\n"'

# The skills extension, with the working group's SDK as the host.
cp test/e2e/skills-client.mjs "$work/"
ln -s "$(cd "$SKILLS_MODULES" && pwd)" "$work/node_modules"
skills_client() {
  if ! out=$(node "$work/skills-client.mjs" "$@" 2>"$work/skills.err"); then
    cat "$work/skills.err" >&2
    fail "skills-client.mjs $1"
  fi
}
for transport in stdio http; do
  if [[ $transport == stdio ]]; then
    skills_client stdio "$work/stax-mcp"
  else
    HOME=$home STAX_HOME=$work/stax-home "$STAX" mcp --dir "$project" --http 127.0.0.1:0 2>"$work/http.err" &
    server=$!
    url=
    for _ in $(seq 100); do # until it says where it listens, 10 s at most
      url=$(grep -o 'http://[^ ]*/' "$work/http.err" || true)
      [[ -n $url ]] && break
      sleep 0.1
    done
    [[ -n $url ]] || { cat "$work/http.err" >&2; kill "$server"; fail "stax mcp --http did not say where it listens"; }
    skills_client http "$url"
    kill "$server"
    wait "$server" || true
  fi
  check "$transport: the skills extension is declared, with directoryRead" '.extension and .directoryRead'
  check "$transport: skills/list and skills/get give the skills the runtime loads, neither shadowed nor broken" \
    '[.skills[].name] == ["big", "deploy", "lint", "postmortem", "review"]'
  check "$transport: every file of every entry read, its digest and size verified" '.files == 9 and .verified == 9'
  check "$transport: a stateful skill's CALIBRATION, EXAMPLES and MEMORY are in its manifest" \
    '.skills[] | select(.name == "postmortem") | .files == 4'
  check "$transport: an installed skill's entry names its package, version and digest" \
    '.skills[] | select(.name == "lint") | .meta["dev.stax/provenance"] | .version == "1.2.0" and (.digest | startswith("sha256:"))'
  check "$transport: unknown skills, climbing and encoded URIs, other schemes and forged cursors are -32602" \
    '[.refused[]] | length == 5 and all(. == -32602)'
done

# --package: the same host, served straight from a package, nothing
# installed into the project the server runs in.
mkdir -p "$work/empty"
cat >"$work/stax-mcp-package" <<EOF
#!/bin/sh
HOME='$home' STAX_HOME='$work/stax-home' exec '$STAX' mcp --dir '$work/empty' --package '$work/tools'
EOF
chmod +x "$work/stax-mcp-package"
skills_client stdio "$work/stax-mcp-package"
check "--package: the package's skills alone, every file read, its digest and size verified" \
  '[.skills[].name] == ["lint"] and .files == 1 and .verified == 1'
check "--package: the entry names the package, version and digest" \
  '.skills[0].meta["dev.stax/provenance"] | .version == "1.2.0" and (.digest | startswith("sha256:"))'
[[ -z $(ls -A "$work/empty") ]] || fail "stax mcp --package wrote into the project: $(ls -A "$work/empty")"

echo "e2e: $passed passed, 0 failed"
