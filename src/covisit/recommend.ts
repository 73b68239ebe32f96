/**
 * Recommendations: the items most often used together with what an agent
 * just viewed or opened.
 *
 * ## Ranking
 * By co-visit count (summed over the items retrieved, when a call retrieved
 * several), then by the item's label (a file's path, else its key), so equal
 * counts list in a stable, readable order.
 *
 * ## Robustness
 * A bad row (malformed key, unknown kind, count below 1, an item paired with
 * itself) is skipped and logged; a row naming an item that no longer exists
 * is skipped silently (deleting is normal). Neither ever fails the call.
 */
import { placeholders, type Db } from "../storage/sql";
import { isItemKind, itemRef, parseKey, type ItemRef, type ParsedKey } from "../items";
import { existing } from "./kinds";

export interface RelatedItem {
  /** The item's key: `file:<path>`, `entity:<name>`, `doc:<id>`. */
  item: string;
  /** How many sessions used it together with the retrieved item(s). */
  count: number;
}

/** Source items considered per call (open_nodes may retrieve many); leaves bound parameters for LIMIT and OFFSET. */
const MAX_SOURCES = 90;
/** Candidate pages read at most (each 4x the last), so a run of bad or stale rows cannot make a view slow. */
const MAX_PAGES = 3;

/** What an agent sees for an item: a file's path, any other item's key. */
export const itemLabel = (key: string): string => (key.startsWith("file:") ? key.slice("file:".length) : key);

const LABEL_SQL = "CASE WHEN substr(other, 1, 5) = 'file:' THEN substr(other, 6) ELSE other END";

/** One candidate: its summed valid count, and how many of its rows were bad. */
interface CandidateRow extends Record<string, SqlStorageValue> {
  other: string;
  count: number;
  nonpositive: number;
  self: number;
}

function problems(row: CandidateRow, key: ParsedKey | undefined): string[] {
  const found: string[] = [];
  if (!key) found.push("malformed item key");
  else if (!isItemKind(key.kind)) found.push(`unknown item kind "${key.kind}"`);
  if (row.nonpositive > 0) found.push("count is not a positive integer");
  if (row.self > 0) found.push("item paired with itself");
  return found;
}

/** Up to `limit` items related to `sources`, excluding the sources themselves. */
export function relatedTo(db: Db, sources: readonly string[], limit: number): RelatedItem[] {
  if (limit <= 0 || sources.length === 0) return [];
  const from = [...new Set(sources)].slice(0, MAX_SOURCES);
  const exclude = new Set(from);
  const out: RelatedItem[] = [];
  for (let p = 0, page = limit * 2 + 5, offset = 0; p < MAX_PAGES && out.length < limit; p++, offset += page, page *= 4) {
    // Bad counts and self-pairs add nothing to the sum but are counted, so they can be logged.
    const rows = db.all<CandidateRow>(
      `SELECT other,
              SUM(CASE WHEN count >= 1 AND item <> other THEN count ELSE 0 END) AS count,
              SUM(count < 1) AS nonpositive, SUM(item = other) AS self
       FROM covisit_pairs WHERE item IN (${placeholders(from.length)})
       GROUP BY other ORDER BY count DESC, ${LABEL_SQL} LIMIT ? OFFSET ?`,
      ...from,
      page,
      offset,
    );
    const candidates: { row: CandidateRow; ref: ItemRef }[] = [];
    for (const row of rows) {
      const key = parseKey(row.other);
      const bad = problems(row, key);
      if (bad.length > 0) {
        console.error(JSON.stringify({ event: "covisit_bad_row", item: from.length === 1 ? from[0] : from, other: row.other, reasons: bad }));
      }
      const ref = itemRef(row.other);
      if (!ref || exclude.has(row.other) || row.count < 1) continue;
      candidates.push({ row, ref });
    }
    const alive = existing(
      db,
      candidates.map((c) => c.ref),
    );
    for (const c of candidates) {
      if (alive.has(c.row.other) && out.length < limit) out.push({ item: c.row.other, count: c.row.count });
    }
    if (rows.length < page) break;
  }
  return out;
}
