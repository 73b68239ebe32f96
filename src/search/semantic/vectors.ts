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
 * float cosine is below 0.01 (test/search/semantic-vectors.test.ts measures it), far
 * under the gaps that order a ranking.
 *
 * Each row also names the IVF list its vector belongs to (./ivf.ts), which
 * the embedding queue picks when it stores the vector; ./query.ts searches them.
 */
import type { Db } from "../../storage/sql";

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
function dequantize(scale: number, bytes: Int8Array): Float32Array {
  return Float32Array.from(bytes, (b) => b * scale);
}

/** float · (int8 * scale): a query's cosine with a stored vector; dimensions beyond the shorter are ignored. */
export function similarity(query: Float32Array, scale: number, bytes: Int8Array): number {
  const n = Math.min(query.length, bytes.length);
  let dot = 0;
  for (let i = 0; i < n; i++) dot += (query[i] as number) * (bytes[i] as number);
  return dot * scale;
}

/** Stores (or replaces) the vector of `key`, in IVF list `list` (null: none yet, the alarm assigns it). */
export function storeVector(db: Db, key: string, model: string, vector: Float32Array, now: number, list: number | null = null): void {
  const { scale, bytes } = quantize(vector);
  db.run(
    `INSERT INTO embeddings (key, model, scale, vec, updated_at, list) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
     ON CONFLICT (key) DO UPDATE SET model = excluded.model, scale = excluded.scale, vec = excluded.vec, updated_at = excluded.updated_at, list = excluded.list`,
    key,
    model,
    scale,
    bytes.buffer as ArrayBuffer,
    now,
    list,
  );
}

/** The stored vector of `key`, if any (tests, and a "more like this" lookup). */
export function readVector(db: Db, key: string): { model: string; vector: Float32Array } | undefined {
  const row = db.one<{ model: string; scale: number; vec: ArrayBuffer }>("SELECT model, scale, vec FROM embeddings WHERE key = ?", key);
  return row && { model: row.model, vector: dequantize(row.scale, new Int8Array(row.vec)) };
}
