/**
 * The overview column: the picked context's settings and the visitor's
 * role, its counts and size (GET /api/contexts/<name>/stats), its search mode, capacity
 * settings, and the latest changes (memory_history).
 */
import { type Change, formatBytes, type SearchStatus, searchMode } from "../changes";
import type { App } from "./app";
import { byId, fill, h } from "./dom";
import { changeItem } from "./history";

interface Stats {
  context: { name: string; description: string; readOnly: boolean; capacity: Record<string, unknown> | null; role: string };
  counts: { entities: number; relations: number; observations: number; files: number; documents: number; changes: number; lastChange: number; bytes: number };
  search?: SearchStatus;
}

const RECENT = 8;

export async function loadOverview(app: App): Promise<void> {
  const counts = byId("counts");
  try {
    const s = await app.client.getJson<Stats>(`/contexts/${encodeURIComponent(app.context)}/stats`);
    const c = s.counts;
    const rows: [string, string][] = [
      ["Entities", String(c.entities)],
      ["Relations", String(c.relations)],
      ["Observations", String(c.observations)],
      ["Files", String(c.files)],
      ["Documents", String(c.documents)],
      ["Changes kept", String(c.changes)],
      ["Stored", formatBytes(c.bytes)],
      ["Search", searchMode(s.search)],
    ];
    fill(counts, ...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", { "data-count": k.toLowerCase() }, v)]));
    const flags = [`your role: ${s.context.role}`, s.context.readOnly ? "read-only context" : ""].filter(Boolean).join(" · ");
    byId("context-info").textContent = s.context.description ? `${s.context.description} (${flags})` : flags;
    const cap = s.context.capacity;
    byId("capacity").textContent =
      cap && Object.keys(cap).length > 0
        ? `Capacity: ${Object.entries(cap)
            .map(([k, v]) => `${k} ${String(v)}`)
            .join(", ")}`
        : "Capacity: no limits set.";
  } catch (error) {
    fill(counts);
    app.fail(error);
  }
  const recent = byId("recent");
  if (!app.has("memory_history")) {
    fill(recent, h("li", { class: "muted" }, "No history tools on this server."));
    return;
  }
  try {
    const r = await app.call<{ changes: Change[] }>("memory_history", { limit: RECENT });
    fill(recent, ...(r.changes.length === 0 ? [h("li", { class: "muted" }, "No changes yet.")] : r.changes.map((c) => changeItem(app, c, false))));
  } catch (error) {
    app.fail(error);
  }
}
