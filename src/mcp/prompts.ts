/**
 * The prompts, each one user message that embeds live memory of the
 * caller's context within a token budget (characters / 4, like the brief):
 *
 * - `recall {topic}`: what memory holds about the topic, best first (the
 *   search_nodes ranking; documents too when served), with the handles to
 *   open more. Toolset graph.
 * - `remember {summary}`: how to store the summary, listing the existing
 *   entities it likely touches so the agent reuses their names. Toolset graph.
 * - `memory-guide {}`: the instructions in full, with examples, and what the
 *   context holds.
 * - `brief {}`: memory://brief as a prompt. Any of graph, files, documents.
 *
 * A missing or empty required argument is Invalid Params naming it.
 */
import type { GetPromptResult, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { BRIEF_BUDGET, BRIEF_TOKENS, estimateTokens } from "../priority/brief";
import { runGuarded, noteLines, resourceUri, servedKinds, unwrapped, type GuideScope } from "./guide";
import { memoryGuide } from "./guidance";
import { readBrief } from "./resources";
import { cutQuery } from "./schemas";

/** Token budgets of the memory each prompt embeds; the brief prompt's is memory://brief's. */
export const PROMPT_TOKENS = { recall: 2000, remember: 1000, brief: BRIEF_TOKENS } as const;

const RECALL_ENTITIES = 12;
const RECALL_DOCUMENTS = 5;
const REMEMBER_ENTITIES = 15;
const OBSERVATION_CHARS = 200;
/** One entity's line at most: a few observations; open_nodes shows the rest. */
const LINE_CHARS = 1000;
/** search_nodes keeps the single best entity per word by default; a recall wants a few, still well matched. */
const TOP_PER_WORD = 5;
const MIN_RELATIVE_SCORE = 0.3;

const message = (text: string): GetPromptResult => ({ messages: [{ role: "user", content: { type: "text", text } }] });

/** Appends lines while they fit `tokens`; says how many did not. */
function within(tokens: number, head: string, lines: readonly string[], tail: string): string {
  const budget = tokens * 4;
  let out = head;
  let shown = 0;
  for (const line of lines) {
    const left = lines.length - shown - 1;
    const note = left > 0 ? `\n(${left} more not shown)` : "";
    if (out.length + 1 + line.length + note.length + 1 + tail.length > budget) break;
    out += `\n${line}`;
    shown++;
  }
  if (shown < lines.length) out += `\n(${lines.length - shown} more not shown)`;
  return `${out}\n${tail}`;
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

const required = (name: string) =>
  z
    .string({ error: `${name} is required` })
    .refine((s) => s.trim() !== "", `${name} is required and must not be empty`)
    .describe(name);

/** The brief prompt's optional budget: prompt arguments are strings, so a whole number of tokens in BRIEF_BUDGET, as text. */
const briefBudget = z
  .string()
  .refine((s) => /^\d+$/.test(s) && Number(s) >= BRIEF_BUDGET.min && Number(s) <= BRIEF_BUDGET.max, {
    message: `budgetTokens must be a whole number of tokens from ${BRIEF_BUDGET.min} to ${BRIEF_BUDGET.max}`,
  })
  .optional()
  .describe(`tokens, ${BRIEF_BUDGET.min}-${BRIEF_BUDGET.max}; default ${BRIEF_TOKENS}`);

async function recall(scope: GuideScope, topic: string): Promise<GetPromptResult> {
  const opened = await scope.open("prompt:recall");
  // The topic as searched, which is also what the message quotes: a pasted page would fill the budget with itself.
  const query = cutQuery(topic);
  const found = unwrapped(
    await opened.stub.searchNodes(query, { limit: RECALL_ENTITIES, topPerToken: TOP_PER_WORD, minRelativeScore: MIN_RELATIVE_SCORE }, opened.meta),
  );
  const lines = found.entities.map((e) =>
    clip(
      `- ${JSON.stringify(e.name)} (${e.entityType}, ${resourceUri.entity(e.name)}): ${e.observations.map((o) => clip(o, OBSERVATION_CHARS)).join(" | ") || "no observations"}`,
      LINE_CHARS,
    ),
  );
  for (const r of found.relations) lines.push(`- ${r.from} ${r.relationType} ${r.to}`);
  if (scope.toolsets.has("documents")) {
    for (const d of unwrapped(await opened.stub.searchDocuments(query, RECALL_DOCUMENTS, opened.meta)).results) {
      lines.push(`- document ${d.id} "${d.title}" (${resourceUri.doc(d.id)}): ${clip(d.snippet, OBSERVATION_CHARS)}`);
    }
  }
  const head = `${noteLines(opened)}What memory (context "${opened.name}") holds about ${JSON.stringify(query)}${query === topic ? "" : ` (its first ${query.length} characters)`}, best first:`;
  const tail =
    lines.length === 0
      ? "Nothing yet. If you learn something worth keeping, store it (the remember prompt says how)."
      : "Open more with open_nodes on these names (or read their memory:// resources); search_nodes with other words finds more. Use this before you answer.";
  return message(within(PROMPT_TOKENS.recall, head, lines, tail));
}

async function remember(scope: GuideScope, summary: string): Promise<GetPromptResult> {
  const opened = await scope.open("prompt:remember");
  const found = unwrapped(
    await opened.stub.searchNodes(
      cutQuery(summary),
      { limit: REMEMBER_ENTITIES, topPerToken: TOP_PER_WORD, minRelativeScore: MIN_RELATIVE_SCORE, maxPathLength: 0 },
      opened.meta,
    ),
  );
  const lines = found.entities.map((e) => `- ${JSON.stringify(e.name)} (${e.entityType})`);
  const head = [
    `${noteLines(opened)}Store this in memory (context "${opened.name}"):`,
    summary,
    "",
    "How: split it into facts. One fact per observation, a short sentence (add_observations).",
    "Reuse the exact name of an existing entity; create_entities only for what is new, with a canonical name and a type.",
    "Relations in active voice (create_relations: Ada works_on Engram). Skip what memory already holds.",
    lines.length
      ? "Existing entities it likely touches (reuse these names):"
      : "No existing entity matches; search_nodes once more with other words before creating.",
  ].join("\n");
  return message(within(PROMPT_TOKENS.remember + estimateTokens(summary), head, lines, ""));
}

async function guide(scope: GuideScope): Promise<GetPromptResult> {
  const opened = await scope.open("prompt:memory-guide");
  const counts = unwrapped(await opened.stub.overview());
  const kinds = servedKinds(scope.toolsets);
  const held = [
    kinds.includes("entity") ? `${counts.entities} entities, ${counts.relations} relations, ${counts.observations} observations` : "",
    kinds.includes("file") ? `${counts.files} files` : "",
    kinds.includes("doc") ? `${counts.documents} documents` : "",
  ].filter(Boolean);
  const context = `${noteLines(opened)}Your memory context "${opened.name}"${held.length ? ` holds ${held.join(", ")}` : ""}.`;
  return message(`${memoryGuide(scope.toolsets, scope.pinned)}\n\n${context}`);
}

/** Registers the prompts the connection's toolsets serve. */
export function registerPrompts(server: McpServer, scope: GuideScope): void {
  server.server.registerCapabilities({ prompts: { listChanged: false } });
  if (scope.toolsets.has("graph")) {
    server.registerPrompt(
      "recall",
      {
        title: "Recall",
        description: `What memory knows about a topic, best first, with handles to open more (within ${PROMPT_TOKENS.recall} tokens)`,
        argsSchema: z.object({ topic: required("topic") }),
      },
      ({ topic }) => runGuarded("prompt:recall", () => recall(scope, topic)),
    );
    server.registerPrompt(
      "remember",
      {
        title: "Remember",
        description: "How to store a summary as entities, relations and observations, with the existing entities to reuse",
        argsSchema: z.object({ summary: required("summary") }),
      },
      ({ summary }) => runGuarded("prompt:remember", () => remember(scope, summary)),
    );
  }
  server.registerPrompt("memory-guide", { title: "Memory guide", description: "How to use this memory well, with examples" }, () =>
    runGuarded("prompt:memory-guide", () => guide(scope)),
  );
  if (servedKinds(scope.toolsets).length > 0) {
    server.registerPrompt(
      "brief",
      {
        title: "Memory brief",
        description: `The context's briefing: marked important, most used, most recent (within ${PROMPT_TOKENS.brief} tokens)`,
        argsSchema: z.object({ budgetTokens: briefBudget }),
      },
      ({ budgetTokens }) =>
        runGuarded("prompt:brief", async () =>
          message((await readBrief(scope, "prompt:brief", budgetTokens === undefined ? PROMPT_TOKENS.brief : Number(budgetTokens))).text),
        ),
    );
  }
}
