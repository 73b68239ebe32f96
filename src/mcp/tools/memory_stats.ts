import { z } from "zod";
import { TOP_ITEMS, type MemoryStats } from "../../priority/stats";
import type { EmbeddingStatus } from "../../search/semantic";
import { plural } from "../format";
import { callContext, defineTool, READ, reply } from "../tool";

const iso = (ms: number | null | undefined) => (ms == null ? null : new Date(ms).toISOString());
const counts = z.record(z.string(), z.number());

const LimitOut = z.object({ limit: z.string(), max: z.number(), used: z.number(), percent: z.number(), near: z.boolean() });

/** memory_stats' answer: the object's numbers with times as ISO strings. */
function shape(s: MemoryStats & { search: EmbeddingStatus }) {
  const e = s.lastEvaluation;
  return {
    total: s.total,
    counts: { tier: s.byTier, category: s.byCategory, kind: s.byKind },
    limits: s.limits,
    archived: s.archive.items,
    lastEvaluation: e && { at: iso(e.at) as string, outcome: e.outcome, pruned: e.pruned, reason: e.reason },
    nextEvaluation: iso(s.nextEvaluation),
    top: s.top.map((t) => ({ item: t.item, priority: Math.round(t.priority * 1e4) / 1e4 })),
    search: { mode: s.search.mode, embedded: s.search.embedded, queued: s.search.queued, oldestQueuedMs: s.search.oldestQueuedMs },
  };
}

/** The lines the structured answer leaves out: newest archived, what the last evaluation pruned and its change, each top item's category. */
function details(s: MemoryStats) {
  const e = s.lastEvaluation;
  return {
    bytes: s.archive.bytes,
    newest: s.archive.newest.map((a) => `#${a.id} ${a.item}`).join(", "),
    pruned:
      e && e.prunedItems.length > 0
        ? ` Pruned: ${e.prunedItems.join(", ")}${e.pruned > e.prunedItems.length ? ", ..." : ""}${e.change !== undefined ? ` (change #${e.change}; undo{change: ${e.change}} brings them back)` : ""}.`
        : "",
    top: new Map(s.top.map((t) => [t.item, `${t.tier}, ${t.category}, ${plural(t.accessCount, "access", "accesses")}${t.important ? ", important" : ""}`])),
  };
}

function text(o: ReturnType<typeof shape>, d: ReturnType<typeof details>): string {
  const list = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
  const lines = [
    `${plural(o.total, "item")} (${list(o.counts.kind ?? {})}). Tiers: ${list(o.counts.tier ?? {})}. Categories: ${list(o.counts.category ?? {})}.`,
    o.limits.length > 0
      ? `Capacity: ${o.limits.map((l) => `${l.limit} ${l.used}/${l.max} (${l.percent}%${l.near ? ", near" : ""})`).join(", ")}. Next evaluation: ${o.nextEvaluation ?? "none"}.`
      : "Capacity: none set (nothing is ever pruned).",
    `Archive: ${plural(o.archived, "item")}${o.archived > 0 ? ` (${d.bytes} bytes; newest: ${d.newest}); restore{} lists them` : ""}.`,
    o.lastEvaluation
      ? `Last evaluation ${o.lastEvaluation.at}: ${o.lastEvaluation.outcome}, pruned ${o.lastEvaluation.pruned}. ${o.lastEvaluation.reason}${d.pruned}`
      : "Not evaluated yet.",
    `Top by priority: ${o.top.map((t) => `${t.item} ${t.priority} (${d.top.get(t.item)})`).join("; ") || "none"}.`,
    o.search.mode === "hybrid"
      ? `Search: hybrid (words and meaning); ${plural(o.search.embedded, "item")} embedded, ${o.search.queued} waiting${o.search.queued > 0 ? ` (oldest ${Math.round(o.search.oldestQueuedMs / 1000)} s)` : ""}.`
      : "Search: lexical (no embedding model configured).",
  ];
  return lines.join("\n");
}

export default defineTool({
  name: "memory_stats",
  toolset: "priority",
  title: "Memory Stats",
  description: `Counts by tier, category and kind; capacity; archive; last evaluation; top ${TOP_ITEMS} by priority; search mode and embedding lag.`,
  input: {},
  output: {
    total: z.number(),
    counts: z.record(z.string(), counts),
    limits: z.array(LimitOut),
    archived: z.number(),
    lastEvaluation: z.object({ at: z.string(), outcome: z.string(), pruned: z.number(), reason: z.string() }).nullable(),
    nextEvaluation: z.string().nullable(),
    top: z.array(z.object({ item: z.string(), priority: z.number() })),
    search: z.object({ mode: z.enum(["lexical", "hybrid"]), embedded: z.number(), queued: z.number(), oldestQueuedMs: z.number() }),
  },
  annotations: READ,
  access: "read",
  run: ({ context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.memoryStats(resolved.meta),
      (s, resolved) => {
        const out = shape(s);
        return reply(resolved.name, out, text(out, details(s)));
      },
    ),
});
