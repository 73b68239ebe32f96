/**
 * Stored item vectors (migrations/0015_embeddings.sql) and the exact
 * nearest-neighbour search over them.
 *
 * ## Storage
 * One row per item key: the unit vector quantized to int8 with one scale per
 * vector (component i = vec[i] * scale, scale = max |component| / 127), a
 * quarter of float32's bytes: 384 bytes for bge-small's 384 dimensions
 * instead of 1,536, so a scan reads four times fewer pages. The query vector
 * stays float: a similarity is float · int8 * scale, whose error against the
 * float cosine is below 0.01 (test/semantic-vectors.test.ts measures it), far
 * under the gaps that order a ranking.
 *
 * ## nearest()
 * Exact: one pass over the context's vectors of the current model, keeping
 * the best k in a bounded list, so memory is O(k) whatever the number of
 * vectors. Its time at 10,000 and 100,000 vectors: `npm run bench:vectors`
 * (docs/search.md#semantic-mode-the-ai-binding): most of it is workerd handing
 * each row's BLOB to JavaScript, so the next step for large contexts is many
 * vectors per row, not a faster dot product.
 */
import { chunksFor, placeholders, type Db } from "../../storage/sql";

export interface Neighbour {
  key: string;
  /** Cosine similarity to the query, -1 to 1. */
  similarity: number;
}

/** The model the context's vectors come from (embed_state), null in lexical mode. */
export const currentModel = (db: Db): string | null => db.one<{ model: string | null }>("SELECT model FROM embed_state")?.model ?? null;

/** `v` (unit length) as int8 components and the scale one unit stands for. */
export function quantize(v: Float32Array): { scale: number; bytes: Int8Array } {
  let max = 0;
  for (const x of v) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? max / 127 : 1;
  const bytes = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) bytes[i] = Math.round((v[i] as number) / scale);
  return { scale, bytes };
}

/** The float vector a stored one stands for. */
export function dequantize(scale: number, bytes: Int8Array): Float32Array {
  return Float32Array.from(bytes, (b) => b * scale);
}

/** float · (int8 * scale): a query's cosine with a stored vector; dimensions beyond the shorter are ignored. */
export function similarity(query: Float32Array, scale: number, bytes: Int8Array): number {
  const n = Math.min(query.length, bytes.length);
  let dot = 0;
  for (let i = 0; i < n; i++) dot += (query[i] as number) * (bytes[i] as number);
  return dot * scale;
}

/** Stores (or replaces) the vector of `key`. */
export function storeVector(db: Db, key: string, model: string, vector: Float32Array, now: number): void {
  const { scale, bytes } = quantize(vector);
  db.run(
    `INSERT INTO embeddings (key, model, scale, vec, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (key) DO UPDATE SET model = excluded.model, scale = excluded.scale, vec = excluded.vec, updated_at = excluded.updated_at`,
    key,
    model,
    scale,
    bytes.buffer as ArrayBuffer,
    now,
  );
}

/** The stored vector of `key`, if any (tests, and a "more like this" lookup). */
export function readVector(db: Db, key: string): { model: string; vector: Float32Array } | undefined {
  const row = db.one<{ model: string; scale: number; vec: ArrayBuffer }>("SELECT model, scale, vec FROM embeddings WHERE key = ?", key);
  return row && { model: row.model, vector: dequantize(row.scale, new Int8Array(row.vec)) };
}

/**
 * The k stored vectors of `model` (by default the context's; none in lexical mode) most similar to `query` (unit length),
 * best first, ties by key (among equals at the k-th place, the first read
 * is kept). Streams the rows: memory holds k of them. With `scan`, only the
 * `scan` vectors stored last are read, which bounds a query's time on a large context.
 */
export function nearest(db: Db, query: Float32Array, k: number, model: string | null = currentModel(db), scan = Number.MAX_SAFE_INTEGER): Neighbour[] {
  if (k <= 0 || model === null) return [];
  // The scan reads rowids, not keys (a key is text JavaScript would copy for every row): the k kept are named at the end.
  // best: unsorted, at most k; `worst` indexes its lowest once full.
  const best: { rowid: number; similarity: number }[] = [];
  let worst = -1;
  // With a bound, the scan starts at the scan-th vector from the end (rowids only: no vector is read to find it).
  const from =
    scan < Number.MAX_SAFE_INTEGER
      ? (db.one<{ rowid: number }>("SELECT rowid FROM embeddings WHERE model = ? ORDER BY rowid DESC LIMIT 1 OFFSET ?", model, Math.max(0, scan - 1))?.rowid ?? 0)
      : 0;
  for (const [rowid, scale, vec] of db.eachTuple<[number, number, ArrayBuffer]>(
    "SELECT rowid, scale, vec FROM embeddings WHERE model = ? AND rowid >= ?",
    model,
    from,
  )) {
    const s = similarity(query, scale, new Int8Array(vec));
    if (best.length < k) {
      best.push({ rowid, similarity: s });
      if (best.length === k) worst = lowest(best);
    } else if (s > (best[worst] as { similarity: number }).similarity) {
      best[worst] = { rowid, similarity: s };
      worst = lowest(best);
    }
  }
  const keys = new Map<number, string>();
  for (const chunk of chunksFor(best.map((b) => b.rowid))) {
    for (const r of db.all<{ rowid: number; key: string }>(`SELECT rowid, key FROM embeddings WHERE rowid IN (${placeholders(chunk.length)})`, ...chunk))
      keys.set(r.rowid, r.key);
  }
  return best
    .map((b) => ({ key: keys.get(b.rowid) as string, similarity: b.similarity }))
    .sort((a, b) => b.similarity - a.similarity || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function lowest(list: readonly { similarity: number }[]): number {
  let at = 0;
  for (let i = 1; i < list.length; i++) if ((list[i] as { similarity: number }).similarity < (list[at] as { similarity: number }).similarity) at = i;
  return at;
}
