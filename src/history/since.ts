/**
 * "Changed since your last look": what other callers changed in a context
 * since a reader last read its brief (memory://brief, the brief prompt).
 *
 * ## Readers
 * A reader is a token: an API token's id, also for calls through an OAuth
 * grant it consented to (CallMeta.tokenId), else the built-in caller (admin,
 * local). Its own changes are those recorded with its token id
 * (`changes.token_id`) or, for a built-in caller, its caller id.
 *
 * ## Storage layout
 * `brief_seen(reader, seq)` (migrations/0021_team.sql): the last seq a
 * reader's brief covered. Reading the brief moves it to the newest change,
 * so a change is listed to a reader once; one left out for the cap is
 * counted, not listed later. A reader's first read has no row: it lists
 * nothing and starts the row.
 */
import type { CallMeta } from "../storage/meta";
import type { Db } from "../storage/sql";

const SINCE_HEADING = "## Changed since your last look";

/** Characters of one listed change. */
const LINE_CHARS = 240;
/** Items named per change; the rest are counted. */
const ITEMS_PER_LINE = 3;

/** Who "your" means: the token behind the call, else the built-in caller. */
export const readerOf = (meta: Pick<CallMeta, "tokenId" | "callerId">): string => meta.tokenId ?? meta.callerId;

const clip = (s: string) => (s.length <= LINE_CHARS ? s : `${s.slice(0, LINE_CHARS - 1)}…`);

function line(db: Db, c: { seq: number; at: number; caller: string; tool: string; summary: string }): string {
  const items = db.all<{ item: string }>("SELECT item FROM change_items WHERE seq = ? ORDER BY item LIMIT ?", c.seq, ITEMS_PER_LINE + 1).map((r) => r.item);
  const named = items.slice(0, ITEMS_PER_LINE).join(", ") + (items.length > ITEMS_PER_LINE ? " and more" : "");
  return clip(`- ${named || "(no item)"}: ${c.summary} (by ${c.caller}, ${new Date(c.at).toISOString()}, ${c.tool}, #${c.seq})`);
}

/**
 * The section for `reader`, newest change first, at most `max` changes and a
 * count of the rest; undefined on the reader's first read. Marks everything
 * up to now as seen by the reader.
 */
export function sinceLastLook(db: Db, reader: string, max: number): string | undefined {
  const seen = db.one<{ seq: number }>("SELECT seq FROM brief_seen WHERE reader = ?", reader)?.seq;
  const top = db.one<{ seq: number | null }>("SELECT max(seq) AS seq FROM changes")?.seq ?? 0;
  db.run("INSERT INTO brief_seen (reader, seq) VALUES (?1, ?2) ON CONFLICT (reader) DO UPDATE SET seq = max(seq, ?2)", reader, top);
  if (seen === undefined) return undefined;
  const others = "seq > ?1 AND coalesce(token_id, '') <> ?2 AND coalesce(caller_id, '') <> ?2";
  const total = db.one<{ n: number }>(`SELECT count(*) AS n FROM changes WHERE ${others}`, seen, reader)?.n ?? 0;
  if (total === 0) return `${SINCE_HEADING}\nNothing, by anyone else.`;
  const rows = db.all<{ seq: number; at: number; caller: string; tool: string; summary: string }>(
    `SELECT seq, at, caller, tool, summary FROM changes WHERE ${others} ORDER BY seq DESC LIMIT ?3`,
    seen,
    reader,
    max,
  );
  const lines = rows.map((c) => line(db, c));
  const rest = total - rows.length;
  if (rest > 0) lines.push(`(${rest} more not shown: memory_history lists them)`);
  return [SINCE_HEADING, ...lines].join("\n");
}
