import { z } from "zod";
import { fail } from "../../errors";
import { LIMITS } from "../../limits";
import { callContext, defineTool, failure, reply, SETS } from "../tool";
import { intIn } from "../schemas";

const MAX_SELECTED = 100;
const LIST_PAGE = 20;
const itemKey = z
  .string()
  .max(LIMITS.filePath + 8)
  .regex(/^(entity|file|doc):./s, 'item must be a key like "entity:Alice", "file:notes/a.md" or "doc:ideas"');

const iso = (ms: number) => new Date(ms).toISOString();
/** At most 20 of a long list in the text (structuredContent has them all). */
const shown = (xs: readonly string[]) => xs.slice(0, 20).join("; ") + (xs.length > 20 ? `; and ${xs.length - 20} more` : "");

export default defineTool({
  name: "restore",
  toolset: "priority",
  title: "Restore Archived Items",
  description:
    "Bring back pruned items (key or archive id) with their relations; one missing its other end waits (relationsDeferred). No items or ids: lists the archive.",
  input: {
    items: z.array(itemKey).max(MAX_SELECTED).optional().describe("Newest archived copy of each"),
    ids: z.array(intIn("ids", 1)).max(MAX_SELECTED).optional(),
    before: intIn("before", 1).optional().describe("Listing: older than this id"),
    kind: z.enum(["entity", "file", "doc"]).optional().describe("Listing: only this kind"),
  },
  output: {
    restored: z.array(z.string()).optional(),
    notFound: z.array(z.string()).optional(),
    conflicts: z.array(z.string()).optional(),
    reparented: z.array(z.string()).optional(),
    relationsRestored: z.array(z.string()).optional(),
    relationsDeferred: z.array(z.object({ relation: z.string(), waitsFor: z.string(), archiveId: z.number() })).optional(),
    change: z.number().optional(),
    archived: z.array(z.object({ id: z.number(), item: z.string(), reason: z.string() })).optional(),
    next: z.number().optional(),
  },
  annotations: SETS,
  access: "write",
  run: async ({ items, ids, before, kind, context }, ctx) => {
    const selecting = (items?.length ?? 0) + (ids?.length ?? 0) > 0;
    if (selecting && (before !== undefined || kind !== undefined)) {
      return failure(fail("Invalid", "before and kind page the listing; give them without items or ids, or restore without them. Nothing was restored."));
    }
    if (!selecting) {
      return callContext(
        ctx,
        context,
        (resolved) => resolved.stub.listArchive({ limit: LIST_PAGE, ...(before !== undefined ? { before } : {}), ...(kind ? { kind } : {}) }, resolved.meta),
        (l, resolved) => {
          const archived = l.items.map((a) => ({ id: a.id, item: a.item, reason: a.reason }));
          const lines = l.items.map((a) => `#${a.id} ${a.item} (archived ${iso(a.archivedAt)}, ${a.bytes} bytes): ${a.reason}`);
          if (lines.length === 0) lines.push(l.total === 0 ? "The archive is empty." : "No archived items match.");
          else {
            lines.unshift(`${l.total} archived in all, newest first:`);
            lines.push(`Restore with restore{ids: [${archived[0]?.id}]} or restore{items: ["${archived[0]?.item}"]}.`);
          }
          if (l.next !== undefined) lines.push(`Older: restore{before: ${l.next}${kind ? `, kind: "${kind}"` : ""}}`);
          return reply(resolved.name, { archived, ...(l.next !== undefined ? { next: l.next } : {}) }, lines.join("\n"));
        },
      );
    }
    return callContext(
      ctx,
      context,
      (resolved) => resolved.stub.restoreArchived({ items: items ?? [], ids: ids ?? [] }, resolved.meta),
      (r, resolved) => {
        const lines = [`Restored ${r.restored.length}: ${r.restored.map((x) => x.item).join(", ") || "nothing"}.`];
        if (r.notFound.length > 0) lines.push(`Not in the archive: ${r.notFound.join(", ")} (restore{} lists it).`);
        for (const k of r.conflicts) lines.push(`Conflict, kept archived: #${k.id} ${k.item}: ${k.reason}.`);
        for (const d of r.reparented) lines.push(`${d.item} came back under the root: its parent "${d.parent}" no longer exists.`);
        if (r.relationsRestored.length > 0) lines.push(`Relations back: ${shown(r.relationsRestored)}.`);
        if (r.relationsDeferred.length > 0) {
          const waiting = r.relationsDeferred.map(
            (d) => `${d.relation} (kept as archive #${d.archiveId} until ${d.waitsFor} exists; then restore{ids: [${d.archiveId}]})`,
          );
          lines.push(`Relations still archived, nothing lost: ${shown(waiting)}.`);
        }
        for (const a of r.aliasesSkipped) lines.push(`${a.item}: alias "${a.alias}" not restored, the name is ${a.takenBy} now.`);
        if (r.change !== undefined) lines.push(`Recorded as change #${r.change}; undo{change: ${r.change}} takes it back.`);
        const out: Record<string, unknown> = { restored: r.restored.map((x) => x.item) };
        if (r.notFound.length > 0) out.notFound = r.notFound;
        if (r.conflicts.length > 0) out.conflicts = r.conflicts.map((k) => `#${k.id} ${k.item}: ${k.reason}`);
        if (r.reparented.length > 0) out.reparented = r.reparented.map((d) => d.item);
        if (r.relationsRestored.length > 0) out.relationsRestored = r.relationsRestored;
        if (r.relationsDeferred.length > 0) out.relationsDeferred = r.relationsDeferred;
        if (r.change !== undefined) out.change = r.change;
        return reply(resolved.name, out, lines.join("\n"));
      },
    );
  },
});
