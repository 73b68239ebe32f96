import { z } from "zod";
import type { MemoryStats } from "../../priority/stats";
import { callContext, defineTool, reply } from "../tool";

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
const counts = z.record(z.string(), z.number());

const LimitOut = z.object({
  limit: z.string().describe("total, short, mid or long"),
  max: z.number(),
  used: z.number(),
  percent: z.number(),
  near: z.boolean().describe("Use is at or over 90% of the limit: the next evaluation prunes"),
});

/** memory_stats' answer: the object's numbers with times as ISO strings. */
function shape(s: MemoryStats) {
  const e = s.lastEvaluation;
  return {
    total: s.total,
    byTier: s.byTier,
    byCategory: s.byCategory,
    byKind: s.byKind,
    capacity: s.capacity,
    limits: s.limits,
    archive: { items: s.archive.items, bytes: s.archive.bytes, newest: s.archive.newest.map((a) => ({ ...a, archivedAt: iso(a.archivedAt) as string })) },
    lastEvaluation: e && {
      at: iso(e.at) as string,
      outcome: e.outcome,
      pruned: e.pruned,
      prunedItems: e.prunedItems,
      reason: e.reason,
      ...(e.change !== undefined ? { change: e.change } : {}),
    },
    nextEvaluation: iso(s.nextEvaluation),
    top: s.top.map((t) => ({ ...t, priority: Math.round(t.priority * 1e4) / 1e4 })),
  };
}

function text(o: ReturnType<typeof shape>): string {
  const list = (r: Record<string, number>) => Object.entries(r).map(([k, n]) => `${k} ${n}`).join(", ");
  const lines = [
    `${o.total} items (${list(o.byKind)}). Tiers: ${list(o.byTier)}. Categories: ${list(o.byCategory)}.`,
    o.capacity
      ? `Capacity: ${o.limits.map((l) => `${l.limit} ${l.used}/${l.max} (${l.percent}%${l.near ? ", near" : ""})`).join(", ")}. Next evaluation: ${o.nextEvaluation ?? "none"}.`
      : "Capacity: none set (nothing is ever pruned).",
    `Archive: ${o.archive.items} items${o.archive.items > 0 ? ` (newest: ${o.archive.newest.map((a) => `#${a.id} ${a.item}`).join(", ")}); restore{} lists them` : ""}.`,
    o.lastEvaluation ? `Last evaluation ${o.lastEvaluation.at}: ${o.lastEvaluation.outcome}, pruned ${o.lastEvaluation.pruned}. ${o.lastEvaluation.reason}` : "Not evaluated yet.",
    `Top by priority: ${o.top.map((t) => `${t.item} ${t.priority} (${t.tier}${t.important ? ", important" : ""})`).join("; ") || "none"}.`,
  ];
  return lines.join("\n");
}

export default defineTool({
  name: "memory_stats",
  toolset: "priority",
  title: "Memory Stats",
  description:
    "How this memory context is doing: items by tier (short, mid, long), category and kind; the capacity limits and their use; the archive of pruned items; the last capacity evaluation; and the top 10 items by priority. Reading it is not an access.",
  input: {},
  output: {
    total: z.number().describe("Entities, files and documents"),
    byTier: counts,
    byCategory: counts,
    byKind: counts.describe("entity, file, doc"),
    capacity: z.record(z.string(), z.number()).nullable().describe("Limits set through the contexts API; null: none"),
    limits: z.array(LimitOut),
    archive: z.object({
      items: z.number(),
      bytes: z.number(),
      newest: z.array(z.object({ id: z.number(), item: z.string(), archivedAt: z.string() })),
    }),
    lastEvaluation: z
      .object({
        at: z.string(),
        outcome: z.enum(["within", "pruned", "partial", "over_capacity"]),
        pruned: z.number(),
        prunedItems: z.array(z.string()),
        reason: z.string(),
        change: z.number().optional().describe("The memory_history #seq recording the pruning"),
      })
      .nullable(),
    nextEvaluation: z.string().nullable(),
    top: z.array(
      z.object({ item: z.string(), priority: z.number(), tier: z.string(), category: z.string(), important: z.boolean(), accessCount: z.number() }),
    ),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: ({ context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.memoryStats(c.meta),
      (s, c) => {
        const out = shape(s);
        return reply(c.name, out, text(out));
      },
    ),
});
