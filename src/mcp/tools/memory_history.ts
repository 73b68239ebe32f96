import { z } from "zod";
import { LIMITS } from "../../limits";
import type { ChangeInfo } from "../../history";
import { callContext, defineTool, READ, reply } from "../tool";
import { intIn } from "../schemas";

const ChangeOut = z.object({
  seq: z.number(),
  at: z.string(),
  caller: z.string(),
  callerId: z.string().optional(),
  session: z.string().optional(),
  tool: z.string(),
  summary: z.string(),
  undoneBy: z.number().optional(),
  undoes: z.array(z.number()).optional(),
});

/** "#12 2026-11-22T10:15:03Z alice create_entities: +entity Alice [undone by #14]" */
function changeLine(change: ChangeInfo): string {
  const at = change.at.replace(/\.\d{3}Z$/, "Z");
  const flag = change.undoneBy !== undefined ? ` [undone by #${change.undoneBy}]` : "";
  return `#${change.seq} ${at} ${change.caller} ${change.tool}: ${change.summary}${flag}`;
}

/** Changes one call lists when it gives no limit. */
const HISTORY_PAGE = 20;

export default defineTool({
  name: "memory_history",
  toolset: "history",
  title: "Memory History",
  description: "Changes, newest first (#seq time caller tool: summary).",
  input: {
    item: z
      .string()
      .max(LIMITS.filePath + 16)
      // A refinement, not a pattern in tools/list: that listing is at its byte budget, and the description says the form.
      .refine((v) => /^(entity|file|doc):./.test(v), 'item must be a key like "entity:Alice", "file:notes/a.md" or "doc:root"')
      .optional()
      .describe("entity:<name>, file:<path> or doc:<id>"),
    caller: z.string().min(1).max(128).optional(),
    // Unbounded to stay within tools/list's byte budget: it is only compared for equality.
    tool: z.string().optional(),
    since: z
      .string()
      .max(40)
      .refine((s) => !Number.isNaN(Date.parse(s)), "since must be an ISO 8601 time such as 2026-11-22T10:00:00Z")
      .optional()
      .describe("ISO 8601 time"),
    before: intIn("before", 1).optional().describe("Older than this #seq"),
    limit: intIn("limit", 1, 200).optional(),
  },
  output: { changes: z.array(ChangeOut), more: z.boolean() },
  annotations: READ,
  access: "read",
  run: ({ item, caller, tool, since, before, limit, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) =>
        resolved.stub.history(
          { item, caller, tool, since: since === undefined ? undefined : Date.parse(since), before, limit: limit ?? HISTORY_PAGE },
          resolved.meta,
        ),
      ({ changes, more }, resolved) => {
        const lines = changes.map(changeLine);
        if (lines.length === 0) lines.push("No changes match.");
        const last = changes[changes.length - 1];
        if (more && last) lines.push(`Older changes: memory_history{before: ${last.seq}}`);
        return reply(resolved.name, { changes, more }, lines.join("\n"));
      },
    ),
});
