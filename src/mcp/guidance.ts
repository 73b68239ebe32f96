/**
 * What the server tells an agent about using its memory, with no custom
 * system prompt: the `instructions` of the initialize (and discover) result,
 * at most INSTRUCTIONS_MAX characters, and the `memory-guide` prompt, the
 * same guidance in full with examples. Both are built from the connection's
 * toolsets and name only tools it serves.
 */
import type { Toolset } from "./tool";

/** The most characters the instructions may take: they land in every conversation. */
export const INSTRUCTIONS_MAX = 2000;

interface Part {
  /** Served when every one of these toolsets is. */
  needs: readonly Toolset[];
  text: string;
}

const RECALL: Part[] = [
  {
    needs: ["graph"],
    text: "Recall before you work: at the start of a task, and before answering about a person, project, decision or preference, call recall with the question (it answers with the text that matched, within a token budget), or search_nodes with a few keywords to list entities, then open_nodes on the names that matter.",
  },
  { needs: ["documents"], text: "Documents: search_documents, then read_document one at a time." },
  { needs: ["files"], text: "Notes in files: view a directory first, then the file (view_range for long ones)." },
];

const STORE: Part[] = [
  {
    needs: ["graph"],
    text:
      "Remember what will matter later (decisions, preferences, facts about people and projects), without being asked. " +
      "One fact per observation, a short sentence. Reuse the exact name of an existing entity (search first; never a second spelling); " +
      'name entities canonically ("Ada Lovelace", not "ada"). Relations in active voice: Ada works_on Engram.',
  },
  { needs: ["graph"], text: "When a fact changes, update_observation replaces it; the old one stays as superseded." },
  { needs: ["files"], text: "Longer notes go in files, one per topic; change them with str_replace or insert, not a rewrite." },
  { needs: ["documents"], text: "update_document replaces a whole document: read_document it first." },
  { needs: ["priority"], text: "mark_important what must never be forgotten." },
  { needs: ["history"], text: "undo reverts a mistaken change; memory_history shows who changed what." },
];

const SMALL: Part[] = [
  {
    needs: ["graph"],
    text: 'Keep answers small: search instead of read_graph; read_graph pages (mode "summary" lists names and types only), so ask for the next page only when you need it.',
  },
];

const SHORTCUTS: Part[] = [
  {
    needs: ["graph"],
    text: "The recall and remember prompts and the memory://brief resource do the above in one step.",
  },
];

const served = (parts: readonly Part[], toolsets: ReadonlySet<Toolset>) =>
  parts
    .filter((p) => p.needs.every((t) => toolsets.has(t)))
    .map((p) => p.text)
    .join(" ");

function whereCallsGo(toolsets: ReadonlySet<Toolset>, pinned: string | undefined): string {
  const line = "Every result names the memory context it acted on.";
  if (pinned !== undefined) return `This connection is pinned to the memory context "${pinned}". ${line}`;
  const pick = toolsets.has("contexts")
    ? "A tool's optional `context` argument picks the context (list_contexts shows yours); without it a call uses your active one (set_active_context)."
    : "A tool's optional `context` argument picks the context; without it a call uses your active one.";
  return `${pick} ${line}`;
}

/** The initialize result's instructions for a connection serving `toolsets`. */
export function instructions(toolsets: ReadonlySet<Toolset>, pinned?: string): string {
  const text = [
    "Engram is your long-term memory, shared with your team. Use it without being reminded.",
    served(RECALL, toolsets),
    served(STORE, toolsets),
    served(SMALL, toolsets),
    served(SHORTCUTS, toolsets),
    whereCallsGo(toolsets, pinned),
  ]
    .filter(Boolean)
    .join("\n");
  // A context name is at most 64 characters, so this never cuts; it keeps the promise if the text grows.
  return text.length <= INSTRUCTIONS_MAX ? text : `${text.slice(0, INSTRUCTIONS_MAX - 1)}…`;
}

const EXAMPLES: Part[] = [
  {
    needs: ["graph"],
    text: [
      "## Examples",
      'Before answering "what did we decide about the database?": recall {"query": "what did we decide about the database?"}; or search_nodes {"query": "database decision"}, then open_nodes on the best names.',
      'Storing "Ada prefers Postgres and leads the billing rewrite":',
      '- search_nodes {"query": "Ada billing"} finds "Ada Lovelace" and "Billing Rewrite": reuse those names.',
      '- add_observations {"observations": [{"entityName": "Ada Lovelace", "contents": ["Prefers Postgres"]}]} (one fact per observation).',
      '- create_relations {"relations": [{"from": "Ada Lovelace", "to": "Billing Rewrite", "relationType": "leads"}]} (active voice).',
      'Not: one observation holding a paragraph; a new entity "ada" beside "Ada Lovelace"; a relation "is_led_by".',
    ].join("\n"),
  },
];

/** The `memory-guide` prompt: the instructions in full, with examples. */
export function memoryGuide(toolsets: ReadonlySet<Toolset>, pinned?: string): string {
  const examples = served(EXAMPLES, toolsets);
  return ["# Using engram's memory", instructions(toolsets, pinned), examples].filter(Boolean).join("\n\n");
}
