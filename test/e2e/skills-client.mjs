// A host of the MCP skills extension (SEP-2640), written with the working
// group's SDK (@olaservo/ext-skills) on the TypeScript MCP client: it lists
// every skill, gets each, reads and verifies every file of every entry
// against its digest and size, walks each skill's directories, and checks
// that what the server does not serve is refused with -32602. It prints one
// JSON summary; test/e2e/mcp.sh checks it with jq.
//
// Usage: node skills-client.mjs stdio COMMAND [ARG...]
//        node skills-client.mjs http URL
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  checkSkillLimits,
  getSkill,
  listSkills,
  readSkill,
  readSkillResource,
  serverSupportsDirectoryRead,
  serverSupportsSkills,
  walkDirectory,
} from "@olaservo/ext-skills/client";

const [mode, target, ...args] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, args, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(target));
const client = new Client({ name: "ext-skills-e2e", version: "1" });
await client.connect(transport);

const summary = {
  extension: serverSupportsSkills(client) === true,
  directoryRead: serverSupportsDirectoryRead(client),
  skills: [],
  files: 0,
  verified: 0,
  overLimits: [],
  refused: {},
};
const entries = await listSkills(client);
for (const listed of entries) {
  const entry = await getSkill(client, listed.uri);
  if (JSON.stringify(entry) !== JSON.stringify(listed)) {
    throw new Error(`skills/get ${listed.uri} differs from its skills/list entry`);
  }
  await readSkill(client, entry); // SKILL.md: digest, size and frontmatter
  for (const ref of entry.resources) {
    summary.files++;
    await readSkillResource(client, entry, ref.uri); // throws on a mismatch
    summary.verified++;
  }
  const dir = entry.uri.slice(0, -"/SKILL.md".length);
  const walked = (await walkDirectory(client, dir)).map((c) => c.uri).sort();
  const manifest = entry.resources.map((r) => r.uri).sort();
  if (JSON.stringify(walked) !== JSON.stringify(manifest)) {
    throw new Error(`walking ${dir} found ${walked}, the manifest names ${manifest}`);
  }
  if (!checkSkillLimits(entry).withinLimits) summary.overLimits.push(entry.uri);
  summary.skills.push({ uri: entry.uri, name: entry.frontmatter.name, files: entry.resources.length, meta: entry._meta ?? null });
}

// What the server does not serve: -32602 (Invalid params).
async function code(f) {
  try {
    await f();
    return 0;
  } catch (e) {
    return e.code ?? String(e);
  }
}
summary.refused.unknownSkill = await code(() => getSkill(client, "skill://no-such-skill/SKILL.md"));
summary.refused.climbing = await code(() => client.readResource({ uri: "skill://a/../b/SKILL.md" }));
summary.refused.encodedSeparator = await code(() => client.readResource({ uri: "skill://a%2FSKILL.md" }));
summary.refused.otherScheme = await code(() => client.readResource({ uri: "file:///etc/passwd" }));
summary.refused.forgedCursor = await code(() =>
  client.request({ method: "skills/list", params: { cursor: "forged" } }, { "~standard": { version: 1, vendor: "e2e", validate: (v) => ({ value: v }) } }),
);

await client.close();
console.log(JSON.stringify(summary));
