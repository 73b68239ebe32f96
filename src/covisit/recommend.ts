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
import { placeholders, type Db } from "../context/sql";
import { existing, knownKind, parseKey, type ParsedKey } from "./kinds";

export interface RelatedItem {
  /** The item's key: `file:<path>`, `entity:<name>`, `doc:<id>`. */
  item: string;
  /** How many sessions used it together with the retrieved item(s). */
  count: number;
}

/** Source items considered per call (open_nodes may retrieve many); leaves a bound parameter for LIMIT. */
const MAX_SOURCES = 90;
/** Candidate rows read: enough to fill the list past skipped rows. */
const CANDIDATE_ROWS = 200;

/** What an agent sees for an item: a file's path, any other item's key. */
export const itemLabel = (key: string): string => (key.startsWith("file:") ? key.slice("file:".length) : key);

const LABEL_SQL = "CASE WHEN substr(other, 1, 5) = 'file:' THEN substr(other, 6) ELSE other END";

interface PairRow extends Record<string, SqlStorageValue> {
  item: string;
  other: string;
  count: number;
}

function problem(row: PairRow, key: ParsedKey | undefined): string | undefined {
  if (!key) return "malformed item key";
  if (!knownKind(key.kind)) return `unknown item kind "${key.kind}"`;
  if (typeof row.count !== "number" || !Number.isInteger(row.count) || row.count < 1) return "count is not a positive integer";
  if (row.other === row.item) return "item paired with itself";
  return undefined;
}

/** Up to `limit` items related to `sources`, excluding the sources themselves. */
export function relatedTo(db: Db, sources: readonly string[], limit: number): RelatedItem[] {
  if (limit <= 0 || sources.length === 0) return [];
  const from = [...new Set(sources)].slice(0, MAX_SOURCES);
  const exclude = new Set(from);
  const sums = new Map<string, { count: number; key: ParsedKey }>();
  const rows = db.all<PairRow>(
    `SELECT item, other, count FROM covisit_pairs WHERE item IN (${placeholders(from.length)})
     ORDER BY count DESC, ${LABEL_SQL} LIMIT ?`,
    ...from,
    CANDIDATE_ROWS,
  );
  for (const row of rows) {
    const key = parseKey(row.other);
    const bad = problem(row, key);
    if (bad || !key) {
      console.error(JSON.stringify({ event: "covisit_bad_row", item: row.item, other: row.other, count: row.count, reason: bad }));
      continue;
    }
    if (exclude.has(row.other)) continue;
    const seen = sums.get(row.other);
    sums.set(row.other, { count: (seen?.count ?? 0) + row.count, key });
  }
  const alive = existing(db, [...sums.values()].map((s) => s.key));
  return [...sums.entries()]
    .filter(([item]) => alive.has(item))
    .map(([item, s]) => ({ item, count: s.count }))
    .sort((a, b) => b.count - a.count || compare(itemLabel(a.item), itemLabel(b.item)))
    .slice(0, limit);
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
