/**
 * A query's side of semantic search: the nearest stored items to a vector,
 * through the IVF index once the context has one (./ivf.ts) and by an exact
 * scan before, and the query text embedded by the context's model. The model
 * call is the one await: the vectors are read after it, in one synchronous
 * pass, so a caller ranks with vectors as they are when the answer comes back.
 */
import { chunksFor, placeholders, type Db } from "../../storage/sql";
import type { Embedder } from "./embedder";
import { type ProbeOptions, probe, scanRows, TopK, UNLISTED_SCAN_MAX } from "./ivf";
import { currentModel } from "./vectors";

export interface Neighbour {
  key: string;
  /** Cosine similarity to the query, -1 to 1. */
  similarity: number;
}

/**
 * The k stored vectors of `model` (by default the context's; none in lexical mode) most similar to `query` (unit length),
 * best first, ties by key (among equals at the k-th place, the first read is kept). With an index, the vectors of
 * the lists nearest the query and those not in a list yet; without one, the newest UNLISTED_SCAN_MAX vectors exactly.
 * Memory holds k candidates, whatever the number of vectors.
 */
export function nearest(db: Db, query: Float32Array, k: number, model: string | null = currentModel(db), opts?: ProbeOptions): Neighbour[] {
  if (k <= 0 || model === null) return [];
  const found = probe(db, query, k, model, opts) ?? exactTop(db, query, k, model, UNLISTED_SCAN_MAX);
  return named(db, found);
}

/** Every vector of `model` scanned, whatever the index: the reference the index's recall is measured against. */
export function nearestExact(db: Db, query: Float32Array, k: number, model: string): Neighbour[] {
  return k <= 0 ? [] : named(db, exactTop(db, query, k, model, Number.MAX_SAFE_INTEGER));
}

function exactTop(db: Db, query: Float32Array, k: number, model: string, limit: number) {
  const top = new TopK(k);
  // In rowid order (the first stored of a tie at the cut is kept), from the limit-th vector from the end (found by rowid alone).
  const from =
    limit < Number.MAX_SAFE_INTEGER
      ? (db.one<{ rowid: number }>("SELECT rowid FROM embeddings WHERE model = ? ORDER BY rowid DESC LIMIT 1 OFFSET ?", model, Math.max(0, limit - 1))?.rowid ?? 0)
      : 0;
  scanRows(db, query, top, "SELECT rowid, scale, vec FROM embeddings WHERE model = ? AND rowid >= ?", model, from);
  return top.items;
}

/** Candidates (rowids) as keys, best first, ties by key. The scans read rowids, not keys (text JavaScript would copy for every row). */
function named(db: Db, found: readonly { rowid: number; similarity: number }[]): Neighbour[] {
  const keys = new Map<number, string>();
  for (const chunk of chunksFor(found.map((b) => b.rowid))) {
    for (const r of db.all<{ rowid: number; key: string }>(`SELECT rowid, key FROM embeddings WHERE rowid IN (${placeholders(chunk.length)})`, ...chunk))
      keys.set(r.rowid, r.key);
  }
  return found
    .flatMap((b) => {
      const key = keys.get(b.rowid);
      return key === undefined ? [] : [{ key, similarity: b.similarity }];
    })
    .sort((a, b) => b.similarity - a.similarity || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The k items nearest in meaning to `query`, best first; null when the model
 * call fails (logged as `query_embedding_failed`), so the caller ranks by
 * words alone rather than failing the search.
 */
export async function nearestToQuery(db: Db, embedder: Embedder, query: string, k: number): Promise<Neighbour[] | null> {
  let vector: Float32Array | undefined;
  try {
    [vector] = await embedder.embed([query]);
  } catch (error) {
    console.error(JSON.stringify({ event: "query_embedding_failed", model: embedder.model, error: String(error) }));
    return null;
  }
  return vector ? nearest(db, vector, k, embedder.model) : null;
}
