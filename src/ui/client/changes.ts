/**
 * History as the page uses it: the shape memory_history answers, which of
 * this tab's changes an Undo button reverts, and how times are shown.
 * Pure (no DOM).
 */
export interface Change {
  seq: number;
  at: string;
  caller: string;
  session?: string;
  tool: string;
  summary: string;
  undoneBy?: number;
  undoes?: number[];
}

/**
 * The change to pass to `undo{change}` to revert what this tab did after
 * change #`after`: the oldest of its changes since, still in effect. Undo
 * also reverts the later changes to the same items, so an edit made of two
 * calls (add the new text, delete the old) is taken back by one undo of its
 * first change. Undefined when the tab made none (nothing was written, or
 * the tool keeps no history), so the page never undoes a change it did not make.
 */
export function ownChangeToUndo(changes: readonly Change[], session: string, after: number): number | undefined {
  const mine = changes.filter((c) => c.seq > after && c.session === session && c.undoneBy === undefined && c.undoes === undefined);
  return mine.length === 0 ? undefined : Math.min(...mine.map((c) => c.seq));
}

/** "2026-11-22 10:15:03" in the viewer's time zone, from an ISO time or epoch milliseconds. */
export function formatTime(at: string | number | null | undefined): string {
  if (at === null || at === undefined) return "never";
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** 1536 -> "1.5 KB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** A context's search mode and embedding lag, as GET /api/contexts/<name>/stats gives them. */
export interface SearchStatus {
  mode: "lexical" | "hybrid";
  embedded: number;
  queued: number;
  oldestQueuedMs: number;
}

/** "lexical", or "hybrid, 12 embedded, 3 waiting (oldest 5 s)". */
export function searchMode(s: SearchStatus | undefined): string {
  if (!s || s.mode === "lexical") return "lexical";
  const waiting = s.queued > 0 ? `, ${s.queued} waiting (oldest ${Math.round(s.oldestQueuedMs / 1000)} s)` : "";
  return `hybrid, ${s.embedded} embedded${waiting}`;
}
