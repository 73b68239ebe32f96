#!/usr/bin/env node
/**
 * SessionEnd and PreCompact: what the session did, from its transcript
 * (`transcript_path`), into memory as the entity `Claude Code session <id>`
 * (type `session`), related to the project and to the entities the session
 * touched through engram's tools. No language model: the user's prompts,
 * the files edited or created, the commands run and the assistant's last
 * words, each an observation, secrets redacted (lib/redact.mjs) before
 * anything is sent.
 *
 * ## Reruns
 * The entity is keyed by the session id. A second capture of the same
 * session (PreCompact, then SessionEnd) makes the entity's observations
 * exactly the new ones: it adds those that are new and deletes those no
 * longer there, so nothing is duplicated. Writes are attributed to the
 * token's caller by the server's history.
 */
import { basename } from "node:path";
import { EngramError, runHook } from "./lib/hook.mjs";
import { redact } from "./lib/redact.mjs";
import { readTranscript } from "./lib/transcript.mjs";

const PROMPTS_KEPT = 12;
const PROMPT_CHARS = 600;
const COMMANDS_KEPT = 30;
const COMMAND_CHARS = 200;
const LIST_CHARS = 3000;
const SUMMARY_CHARS = 3000;

const clip = (s, n) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
const flat = (s) => s.replace(/\s+/g, " ").trim();

/** The observations for a session, in a stable order so reruns compare equal. */
function observationsOf(session, project, token) {
  const out = [`Claude Code session in project ${project}${session.started ? `, started ${session.started}` : ""}`];
  const prompts =
    session.prompts.length > PROMPTS_KEPT ? [...session.prompts.slice(0, PROMPTS_KEPT / 2), ...session.prompts.slice(-PROMPTS_KEPT / 2)] : session.prompts;
  for (const p of prompts) out.push(`User asked: ${clip(flat(p), PROMPT_CHARS)}`);
  if (session.files.length > 0) out.push(clip(`Edited or created files: ${session.files.join(", ")}`, LIST_CHARS));
  if (session.commands.length > 0) {
    const commands = session.commands.slice(-COMMANDS_KEPT).map((c) => clip(flat(c), COMMAND_CHARS));
    out.push(clip(`Ran commands: ${commands.join(" ; ")}`, LIST_CHARS));
  }
  if (session.summary) out.push(`Closing summary: ${clip(flat(session.summary), SUMMARY_CHARS)}`);
  return [...new Set(out.map((o) => redact(o, token)))];
}

runHook("capture", async (input, { client, settings }) => {
  const id = typeof input.session_id === "string" ? input.session_id.trim() : "";
  if (!id || typeof input.transcript_path !== "string") throw new EngramError("the hook input has no session_id or transcript_path");
  const projectDir = process.env.CLAUDE_PROJECT_DIR || (typeof input.cwd === "string" ? input.cwd : "");
  let session;
  try {
    session = await readTranscript(input.transcript_path, projectDir);
  } catch (error) {
    throw new EngramError(`cannot read the transcript (${error.code ?? error.message})`);
  }
  if (session.prompts.length === 0) return undefined;
  const project = basename(projectDir) || "unknown";
  const name = `Claude Code session ${id}`;
  const observations = observationsOf(session, project, settings.token);

  const engram = await client();
  const opened = await engram.call("open_nodes", { names: [name] });
  const existing = opened.structuredContent?.entities?.find((e) => e.name === name);
  if (!existing) {
    await engram.call("create_entities", { entities: [{ name, entityType: "session", observations }] });
  } else {
    const had = new Set(existing.observations ?? []);
    const now = new Set(observations);
    const gone = [...had].filter((o) => !now.has(o));
    const added = observations.filter((o) => !had.has(o));
    if (gone.length > 0) await engram.call("delete_observations", { deletions: [{ entityName: name, observations: gone }] });
    if (added.length > 0) await engram.call("add_observations", { observations: [{ entityName: name, contents: added }] });
  }
  await engram.call("create_entities", { entities: [{ name: project, entityType: "project", observations: [] }] });
  const inProject = { from: name, to: project, relationType: "worked in" };
  const touched = session.touched.filter((t) => t !== name && t !== project).map((to) => ({ from: name, to, relationType: "touched" }));
  try {
    await engram.call("create_relations", { relations: [inProject, ...touched] });
  } catch (error) {
    // One touched entity may be gone since (a relation to a missing entity rejects the call): keep the project's.
    if (touched.length === 0) throw error;
    await engram.call("create_relations", { relations: [inProject] });
  }
  return undefined;
});
