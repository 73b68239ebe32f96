/**
 * What a session did, read from Claude Code's transcript (JSONL, one entry
 * a line): `user` entries hold the prompts (`message.content` a string, or
 * blocks of which `text` ones are typed and `tool_result` ones are not);
 * `assistant` entries hold `text` blocks and `tool_use` blocks (`name`,
 * `input`). Lines that are not JSON, and entry types other than these, are
 * skipped: the format grows, and a capture takes what it understands.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";

const EDIT_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);
/** Text Claude Code puts in user entries that the user did not type. */
const NOT_TYPED = /^(?:<command-|<local-command-|Caveat: |This session is being continued|\[Request interrupted)/;

/** `{ prompts, files, commands, summary, touched, started }` of the transcript at `path`. */
export async function readTranscript(path, projectDir) {
  const text = await readFile(path, "utf8");
  const prompts = [];
  const files = new Set();
  const commands = [];
  const touched = new Set();
  let summary = "";
  let started = "";
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!started && typeof entry?.timestamp === "string") started = entry.timestamp;
    const content = entry?.message?.content;
    if (entry?.type === "user" && !entry.isMeta && !entry.isCompactSummary) {
      const typed =
        typeof content === "string"
          ? content
          : Array.isArray(content)
            ? content
                .filter((b) => b?.type === "text")
                .map((b) => b.text)
                .join("\n")
            : "";
      if (typed.trim() && !NOT_TYPED.test(typed.trim())) prompts.push(typed.trim());
    } else if (entry?.type === "assistant" && Array.isArray(content)) {
      const said = content.filter((b) => b?.type === "text" && typeof b.text === "string" && b.text.trim()).map((b) => b.text.trim());
      if (said.length > 0) summary = said.join("\n");
      for (const block of content) {
        if (block?.type !== "tool_use" || !block.input) continue;
        const input = block.input;
        if (EDIT_TOOLS.has(block.name)) {
          const file = input.file_path ?? input.notebook_path;
          if (typeof file === "string") files.add(shorten(file, projectDir));
        } else if (block.name === "Bash" && typeof input.command === "string") {
          commands.push(input.command.trim());
        } else if (typeof block.name === "string" && /^mcp__.*engram.*__/.test(block.name)) {
          for (const name of entityNames(input)) touched.add(name);
        }
      }
    }
  }
  return { prompts, files: [...files], commands, summary, touched: [...touched], started };
}

/** A path relative to the project when it is inside it. */
function shorten(file, projectDir) {
  if (!projectDir || !isAbsolute(file)) return file;
  const rel = relative(projectDir, file);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/** The entity names an engram tool call's arguments name. */
function entityNames(input) {
  const names = [];
  const add = (n) => typeof n === "string" && n.trim() && names.push(n.trim());
  for (const e of input.entities ?? []) add(e?.name);
  for (const n of input.names ?? []) add(n);
  for (const o of input.observations ?? []) add(o?.entityName);
  for (const r of input.relations ?? []) {
    add(r?.from);
    add(r?.to);
  }
  return names;
}
