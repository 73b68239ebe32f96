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
 * vectors. Its time at 10,000 and 100,000 vectors: `npm run bench:vectors`.
 */
import type { Db } from "../../storage/sql";

export interface Neighbour {
  key: string;
  /** Cosine similarity to the query, -1 to 1. */
  similarity: number;
}

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
 * The k stored vectors of `model` most similar to `query` (unit length),
 * best first, ties by key. Streams the rows: memory holds k of them.
 */
export function nearest(db: Db, query: Float32Array, k: number, model: string): Neighbour[] {
  if (k <= 0) return [];
  // best: unsorted, at most k; `worst` indexes its lowest once full.
  const best: Neighbour[] = [];
  let worst = -1;
  const below = (a: Neighbour, b: Neighbour) => a.similarity < b.similarity || (a.similarity === b.similarity && a.key > b.key);
  for (const row of db.each<{ key: string; scale: number; vec: ArrayBuffer }>("SELECT key, scale, vec FROM embeddings WHERE model = ?", model)) {
    const candidate = { key: row.key, similarity: similarity(query, row.scale, new Int8Array(row.vec)) };
    if (best.length < k) {
      best.push(candidate);
      if (best.length === k) worst = lowest(best, below);
    } else if (below(best[worst] as Neighbour, candidate)) {
      best[worst] = candidate;
      worst = lowest(best, below);
    }
  }
  return best.sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
}

function lowest(list: Neighbour[], below: (a: Neighbour, b: Neighbour) => boolean): number {
  let at = 0;
  for (let i = 1; i < list.length; i++) if (below(list[i] as Neighbour, list[at] as Neighbour)) at = i;
  return at;
}
