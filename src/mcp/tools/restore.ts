import { z } from "zod";
import { fail } from "../../errors";
import { LIMITS } from "../../limits";
import { callContext, defineTool, failure, reply } from "../tool";

const MAX_SELECTED = 100;
const itemKey = z
  .string()
  .max(LIMITS.filePath + 8)
  .regex(/^(entity|file|doc):./s, 'item must be a key like "entity:Alice", "file:notes/a.md" or "doc:ideas"');

const iso = (ms: number) => new Date(ms).toISOString();

export default defineTool({
  name: "restore",
  toolset: "priority",
  title: "Restore Archived Items",
  description:
    "Bring back items the capacity evaluation pruned into the archive (entities with their observations and relations, files, documents), by item key or archive id. " +
    "With no items or ids, lists what is archived, newest first (page with list.before). Reports what came back, what was not archived and what conflicts " +
    "(an item of that name exists again). Recorded as a change, so undo takes it back. Not the point-in-time recovery of the HTTP API.",
  input: {
    items: z.array(itemKey).max(MAX_SELECTED).optional().describe('Item keys to restore (the newest archived copy of each): "entity:<name>", "file:<path>", "doc:<id>"'),
    ids: z.array(z.number().int().min(1)).max(MAX_SELECTED).optional().describe("Archive ids to restore (from the listing)"),
    list: z
      .object({
        before: z.number().int().min(1).optional().describe("Only rows older than this archive id (next from the previous page)"),
        limit: z.number().int().min(1).max(100).optional().describe("Rows per page (default 20)"),
        kind: z.enum(["entity", "file", "doc"]).optional().describe("Only this kind of item"),
      })
      .optional()
      .describe("List the archive instead of restoring (the default when no items or ids are given)"),
  },
  output: {
    restored: z.array(z.object({ id: z.number(), item: z.string() })).optional(),
    notFound: z.array(z.string()).optional().describe("Keys and #ids with nothing archived"),
    conflicts: z.array(z.object({ id: z.number(), item: z.string(), reason: z.string() })).optional(),
    relationsDeferred: z.array(z.string()).optional().describe("Relations kept in the archive with their other, still archived, end"),
    relationsDropped: z.array(z.string()).optional().describe("Relations whose other end no longer exists anywhere"),
    change: z.number().optional().describe("The #seq recording the restore (undo{change} takes it back)"),
    archived: z
      .array(z.object({ id: z.number(), item: z.string(), priority: z.number(), reason: z.string(), archivedAt: z.string(), bytes: z.number() }))
      .optional(),
    total: z.number().optional().describe("Rows in the archive"),
    next: z.number().optional().describe("Pass as list.before for the next page"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: async ({ items, ids, list, context }, ctx) => {
    const selecting = (items?.length ?? 0) + (ids?.length ?? 0) > 0;
    if (selecting && list !== undefined) {
      return failure(fail("Invalid", "give items or ids to restore, or list to see the archive, not both; nothing was restored."));
    }
    if (!selecting) {
      return callContext(
        ctx,
        context,
        (c) => c.stub.listArchive({ limit: list?.limit ?? 20, ...(list?.before !== undefined ? { before: list.before } : {}), ...(list?.kind ? { kind: list.kind } : {}) }, c.meta),
        (l, c) => {
          const archived = l.items.map((a) => ({ ...a, priority: Math.round(a.priority * 1e4) / 1e4, archivedAt: iso(a.archivedAt) }));
          const lines = archived.map((a) => `#${a.id} ${a.item} (archived ${a.archivedAt}, priority ${a.priority}): ${a.reason}`);
          if (lines.length === 0) lines.push(l.total === 0 ? "The archive is empty." : "No archived items match.");
          else lines.push(`Restore with restore{ids: [${archived[0]?.id}]} or restore{items: ["${archived[0]?.item}"]}.`);
          if (l.next !== undefined) lines.push(`Older: restore{list: {before: ${l.next}}}`);
          return reply(c.name, { archived, total: l.total, ...(l.next !== undefined ? { next: l.next } : {}) }, lines.join("\n"));
        },
      );
    }
    return callContext(
      ctx,
      context,
      (c) => c.stub.restoreArchived({ items: items ?? [], ids: ids ?? [] }, c.meta),
      (r, c) => {
        const lines = [`Restored ${r.restored.length}: ${r.restored.map((x) => x.item).join(", ") || "nothing"}.`];
        if (r.notFound.length > 0) lines.push(`Not in the archive: ${r.notFound.join(", ")} (restore{} lists it).`);
        for (const k of r.conflicts) lines.push(`Conflict, kept archived: #${k.id} ${k.item}: ${k.reason}.`);
        if (r.relationsDeferred.length > 0) lines.push(`Relations waiting for their other end (restore it to bring them back): ${r.relationsDeferred.join("; ")}.`);
        if (r.relationsDropped.length > 0) lines.push(`Relations dropped (their other end no longer exists): ${r.relationsDropped.join("; ")}.`);
        if (r.change !== undefined) lines.push(`Recorded as change #${r.change}; undo{change: ${r.change}} takes it back.`);
        const out: Record<string, unknown> = { restored: r.restored };
        for (const k of ["notFound", "conflicts", "relationsDeferred", "relationsDropped"] as const) if (r[k].length > 0) out[k] = r[k];
        if (r.change !== undefined) out.change = r.change;
        return reply(c.name, out, lines.join("\n"));
      },
    );
  },
});
