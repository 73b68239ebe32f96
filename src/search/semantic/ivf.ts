/**
 * An inverted-file (IVF) index over the stored vectors (migrations/0018_vector_lists.sql):
 * the vectors of a model are partitioned into lists around centroids, and a
 * query reads only the lists whose centroids are nearest to it, each list's
 * vectors from one block (a single row), since under workerd handing a
 * row's BLOB to JavaScript costs more than the dot product over it.
 *
 * ## Lifecycle (the object's alarm, never a write)
 * - Below INDEX_MIN vectors a context has no lists and a query scans exactly.
 * - Training: once INDEX_MIN vectors have no list and there are no lists,
 *   spherical k-means over a sample of TRAIN_SAMPLE_PER_LIST per list makes
 *   INDEX_MIN / LIST_TARGET lists, even for a large backlog: splitting grows
 *   them from there, which gives better recall than training many lists at
 *   once (`npm run bench:vectors`).
 * - Assignment: catchUp stores each new vector in its nearest list; vectors
 *   stored before the lists existed (an existing context's, or those written
 *   during training) are assigned ASSIGN_BATCH per step, splits first.
 * - Growth: a list past LIST_MAX is split in two by 2-means over its members
 *   (a bisecting k-means, one list per step), so lists stay near LIST_TARGET
 *   however far the context grows, and no step rereads the whole index.
 * - Blocks: a list's block is rebuilt once it is stale (triggers mark it so
 *   in the transaction of any change to a member) or more than TAIL_MAX new
 *   members wait outside it, BLOCK_BUDGET vectors per step. So a new vector
 *   costs about LIST_TARGET / TAIL_MAX rows of rebuilding, not a whole block.
 * Each step runs in its own transaction; `indexStep` says what it did (null:
 * nothing left), so the alarm runs again at once until the index is caught up.
 *
 * ## Queries
 * `probe` ranks the lists by their centroid's similarity to the query and
 * reads the nearest ones until PROBE_VECTORS vectors are covered, a fresh
 * block in one row (and its tail from rows), a stale list from its rows, plus the vectors not yet in
 * a list (the newest UNLISTED_SCAN_MAX of them). Every similarity it returns
 * is exact for the vector read (blocks are never stale when read), so only
 * recall is approximate: the vectors in lists not probed are missed.
 */
import type { Db } from "../../storage/sql";
import { dot, kmeans, meanDirection } from "./kmeans";
import { similarity } from "./vectors";

/** Vectors of a model without a list before the alarm trains lists: below it an exact scan is cheap (docs/search.md#the-vector-index). */
export const INDEX_MIN = 2048;
/** The list size training and splitting aim at. */
const LIST_TARGET = 512;
/** A list past this is split in two. */
export const LIST_MAX = 1024;
/** Vectors sampled per list for the first training. */
const TRAIN_SAMPLE_PER_LIST = 40;
/** Vectors given a list per step (an existing context's backlog). */
const ASSIGN_BATCH = 1024;
/** Vectors copied into blocks per step. */
const BLOCK_BUDGET = 4096;
/** New members a fresh list may hold outside its block (read from their rows) before the alarm rebuilds the block. */
const TAIL_MAX = 32;
/** A query reads the nearest lists until it has covered this many vectors. */
export const PROBE_VECTORS = 8192;
/** Vectors without a list a query reads at most, the newest first (while the alarm assigns a backlog). */
export const UNLISTED_SCAN_MAX = 20_000;

export interface ProbeOptions {
  /** Vectors to cover by probing lists (Infinity: every list, an exact scan over blocks). */
  probeVectors?: number;
  /** false: read every probed list from its rows, ignoring blocks (to measure what blocks buy). */
  blocks?: boolean;
}

interface Candidate {
  rowid: number;
  similarity: number;
}

/** The best k candidates seen, unsorted; memory O(k). */
export class TopK {
  readonly items: Candidate[] = [];
  private worst = -1;
  constructor(private readonly k: number) {}

  offer(rowid: number, s: number): void {
    const items = this.items;
    if (items.length < this.k) {
      items.push({ rowid, similarity: s });
      if (items.length === this.k) this.worst = lowest(items);
    } else if (s > (items[this.worst] as Candidate).similarity) {
      items[this.worst] = { rowid, similarity: s };
      this.worst = lowest(items);
    }
  }
}

function lowest(list: readonly Candidate[]): number {
  let at = 0;
  for (let i = 1; i < list.length; i++) if ((list[i] as Candidate).similarity < (list[at] as Candidate).similarity) at = i;
  return at;
}

export interface List {
  id: number;
  centroid: Float32Array;
  size: number;
  fresh: boolean;
  /** The block holds members up to this rowid; those above are its tail (read from rows). */
  blockMax: number;
  tail: number;
}

const f32 = (b: ArrayBuffer) => new Float32Array(b);
const bytesOf = (v: Float32Array | Float64Array | Int8Array) => v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength) as ArrayBuffer;

/** The lists of `model` with their centroids. */
export function lists(db: Db, model: string): List[] {
  const out: List[] = [];
  for (const [id, centroid, size, fresh, blockMax, tail] of db.eachTuple<[number, ArrayBuffer, number, number, number, number]>(
    "SELECT id, centroid, size, fresh, block_max, tail FROM vector_lists WHERE model = ?",
    model,
  ))
    out.push({ id, centroid: f32(centroid), size, fresh: fresh === 1, blockMax, tail });
  return out;
}

/** The id of the list whose centroid is nearest to `v`; null when there are none. */
export function nearestList(all: readonly List[], v: Float32Array): number | null {
  let best: number | null = null;
  let bestS = Number.NEGATIVE_INFINITY;
  for (const l of all) {
    const s = dot(l.centroid, v);
    if (s > bestS) {
      bestS = s;
      best = l.id;
    }
  }
  return best;
}

/**
 * The k vectors of `model` nearest to `query` by the index, as rowids with
 * their similarity; null when the model has no lists (the caller scans exactly).
 */
export function probe(db: Db, query: Float32Array, k: number, model: string, opts: ProbeOptions = {}): Candidate[] | null {
  const all = lists(db, model);
  if (all.length === 0) return null;
  const budget = opts.probeVectors ?? PROBE_VECTORS;
  const useBlocks = opts.blocks ?? true;
  const ranked = all.map((l) => ({ l, s: dot(l.centroid, query) })).sort((a, b) => b.s - a.s);
  const fresh: List[] = [];
  const stale: number[] = [];
  let covered = 0;
  for (const { l } of ranked) {
    if (covered >= budget) break;
    if (l.size <= 0) continue;
    if (useBlocks && l.fresh) fresh.push(l);
    else stale.push(l.id);
    covered += l.size;
  }
  const top = new TopK(k);
  for (const l of fresh) {
    const row = db.one<{ ids: ArrayBuffer; scales: ArrayBuffer; vecs: ArrayBuffer }>("SELECT ids, scales, vecs FROM vector_blocks WHERE list = ?", l.id);
    if (row) scanBlock(query, new Float64Array(row.ids), new Float32Array(row.scales), new Int8Array(row.vecs), top);
    if (l.tail > 0) scanRows(db, query, top, "SELECT rowid, scale, vec FROM embeddings WHERE list = ? AND rowid > ?", l.id, l.blockMax);
  }
  for (const id of stale) scanRows(db, query, top, "SELECT rowid, scale, vec FROM embeddings WHERE list = ?", id);
  scanRows(db, query, top, "SELECT rowid, scale, vec FROM embeddings WHERE list IS NULL AND model = ? ORDER BY rowid DESC LIMIT ?", model, UNLISTED_SCAN_MAX);
  return top.items;
}

function scanBlock(query: Float32Array, ids: Float64Array, scales: Float32Array, vecs: Int8Array, top: TopK): void {
  const n = ids.length;
  if (n === 0) return;
  const dims = vecs.length / n;
  const m = Math.min(dims, query.length);
  for (let j = 0, at = 0; j < n; j++, at += dims) {
    let s = 0;
    for (let i = 0; i < m; i++) s += (query[i] as number) * (vecs[at + i] as number);
    top.offer(ids[j] as number, s * (scales[j] as number));
  }
}

/** Offers every row of a `rowid, scale, vec` query to `top`. */
export function scanRows(db: Db, query: Float32Array, top: TopK, sql: string, ...params: (string | number)[]): void {
  for (const [rowid, scale, vec] of db.eachTuple<[number, number, ArrayBuffer]>(sql, ...params)) top.offer(rowid, similarity(query, scale, new Int8Array(vec)));
}

// ---- Maintenance (the alarm) ----

/** What an index step did; null when there was nothing to do. */
export type IndexWork = "train" | "assign" | "drop" | "split" | "blocks" | null;

/** One bounded step of index upkeep for `model`; call in a transaction. Returns what it did (null: the index is caught up). */
export function indexStep(db: Db, model: string): IndexWork {
  const have = lists(db, model);
  const unlisted = db.one<{ n: number }>("SELECT count(*) AS n FROM embeddings WHERE list IS NULL AND model = ?", model)?.n ?? 0;
  if (have.length === 0) {
    if (unlisted < INDEX_MIN) return null;
    train(db, model, unlisted);
    return "train";
  }
  // Splits come before assigning more: a backlog then grows the lists as new vectors would, each batch assigned among
  // the centroids of every split so far. Assigning all of it to the first lists and only then bisecting them gives
  // worse recall (`npm run bench:vectors`, blurred clusters): a vector can never leave its first list's subtree.
  const largest = have.reduce<List | undefined>((a, l) => (a === undefined || l.size > a.size ? l : a), undefined);
  if (largest && largest.size > LIST_MAX) {
    split(db, model, largest);
    return "split";
  }
  if (unlisted > 0) {
    assign(db, model, have);
    return "assign";
  }
  // An emptied list goes (its size counts its members, kept by the triggers of 0018); new vectors go to the others.
  // Not before the backlog is assigned: lists just trained have no members yet.
  if (db.run("DELETE FROM vector_lists WHERE model = ? AND size <= 0", model) > 0) return "drop";
  return rebuildBlocks(db, have) ? "blocks" : null;
}

/** Whether the index of `model` has work for the alarm (counts and flags, no vector read). */
export function indexBehind(db: Db, model: string): boolean {
  const r = db.one<{ lists: number; pending: number; unlisted: number }>(
    `SELECT (SELECT count(*) FROM vector_lists WHERE model = ?1) AS lists,
       (SELECT count(*) FROM vector_lists WHERE model = ?1 AND (fresh = 0 OR size > ?2 OR tail > ?4)) AS pending,
       (SELECT count(*) FROM (SELECT 1 FROM embeddings WHERE list IS NULL AND model = ?1 LIMIT ?3)) AS unlisted`,
    model,
    LIST_MAX,
    INDEX_MIN,
    TAIL_MAX,
  );
  if (!r) return false;
  return r.lists === 0 ? r.unlisted >= INDEX_MIN : r.unlisted > 0 || r.pending > 0;
}

/** Whether some list's block is stale (after a write: the alarm rebuilds it). The lists table is small. */
export const blocksStale = (db: Db): boolean => (db.one<{ s: number }>("SELECT EXISTS (SELECT 1 FROM vector_lists WHERE fresh = 0) AS s")?.s ?? 0) === 1;

function readVectors(db: Db, sql: string, ...params: (string | number)[]): { rowids: number[]; vectors: Float32Array[] } {
  const rowids: number[] = [];
  const vectors: Float32Array[] = [];
  for (const [rowid, scale, vec] of db.eachTuple<[number, number, ArrayBuffer]>(sql, ...params)) {
    rowids.push(rowid);
    const bytes = new Int8Array(vec);
    const v = new Float32Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) v[i] = (bytes[i] as number) * scale;
    vectors.push(v);
  }
  return { rowids, vectors };
}

function train(db: Db, model: string, unlisted: number): void {
  // As many lists as INDEX_MIN vectors fill, whatever the backlog: splits grow them from there (see indexStep).
  const k = Math.max(2, Math.round(Math.min(unlisted, INDEX_MIN) / LIST_TARGET));
  const sample = k * TRAIN_SAMPLE_PER_LIST;
  const stride = Math.max(1, Math.floor(unlisted / sample));
  const { vectors } = readVectors(db, "SELECT rowid, scale, vec FROM embeddings WHERE list IS NULL AND model = ? AND rowid % ? = 0 LIMIT ?", model, stride, sample);
  for (const c of kmeans(vectors, k)) db.run("INSERT INTO vector_lists (model, centroid) VALUES (?, ?)", model, bytesOf(c));
}

function assign(db: Db, model: string, have: readonly List[]): void {
  const { rowids, vectors } = readVectors(
    db,
    "SELECT rowid, scale, vec FROM embeddings WHERE list IS NULL AND model = ? ORDER BY rowid LIMIT ?",
    model,
    ASSIGN_BATCH,
  );
  const byList = new Map<number, number[]>();
  vectors.forEach((v, i) => {
    const id = nearestList(have, v) as number;
    const members = byList.get(id) ?? [];
    members.push(rowids[i] as number);
    byList.set(id, members);
  });
  setList(db, byList);
}

function setList(db: Db, byList: Map<number, number[]>): void {
  for (const [id, members] of byList) db.run("UPDATE embeddings SET list = ? WHERE rowid IN (SELECT value FROM json_each(?))", id, JSON.stringify(members));
}

/**
 * Splits `list` in two by 2-means over its members: it keeps one half under a new centroid, a new list takes the
 * other. When 2-means leaves one side with less than a quarter (directions spread evenly, as in uniform data, have no
 * two clusters to find), the members are cut at the median of the same direction instead, so every split halves a
 * list and the lists stay near LIST_TARGET.
 */
function split(db: Db, model: string, list: List): void {
  const { rowids, vectors } = readVectors(db, "SELECT rowid, scale, vec FROM embeddings WHERE list = ?", list.id);
  let [a, b] = kmeans(vectors, 2) as [Float32Array, Float32Array];
  const lean = vectors.map((v) => dot(v, b) - dot(v, a));
  let cut = 0;
  const toB = lean.filter((x) => x > cut).length;
  if (Math.min(toB, vectors.length - toB) < vectors.length / 4) {
    cut = [...lean].sort((x, y) => x - y)[Math.floor(vectors.length / 2)] as number;
    a = meanDirection(vectors.filter((_, i) => (lean[i] as number) <= cut));
    b = meanDirection(vectors.filter((_, i) => (lean[i] as number) > cut));
  }
  db.run("UPDATE vector_lists SET centroid = ? WHERE id = ?", bytesOf(a), list.id);
  const id = db.one<{ id: number }>("INSERT INTO vector_lists (model, centroid) VALUES (?, ?) RETURNING id", model, bytesOf(b))?.id as number;
  let moved = rowids.filter((_, i) => (lean[i] as number) > cut);
  // Identical vectors (items with the same text) lean neither way: half of them go, so the split still ends.
  if (moved.length === 0 || moved.length === rowids.length) moved = rowids.slice(rowids.length >> 1);
  setList(db, new Map([[id, moved]]));
}

/** Rebuilds stale blocks and those with a long tail, about BLOCK_BUDGET vectors' worth; returns whether it rebuilt any. */
function rebuildBlocks(db: Db, have: readonly List[]): boolean {
  let budget = BLOCK_BUDGET;
  for (const l of have) {
    if (l.fresh && l.tail <= TAIL_MAX) continue;
    if (budget <= 0) break;
    const rows = db.all<{ rowid: number; scale: number; vec: ArrayBuffer }>("SELECT rowid, scale, vec FROM embeddings WHERE list = ? ORDER BY rowid", l.id);
    const dims = rows.reduce((m, r) => Math.max(m, r.vec.byteLength), 0);
    const ids = new Float64Array(rows.length);
    const scales = new Float32Array(rows.length);
    const vecs = new Int8Array(rows.length * dims);
    rows.forEach((r, j) => {
      ids[j] = r.rowid;
      scales[j] = r.scale;
      vecs.set(new Int8Array(r.vec), j * dims);
    });
    db.run(
      "INSERT INTO vector_blocks (list, ids, scales, vecs) VALUES (?, ?, ?, ?) ON CONFLICT (list) DO UPDATE SET ids = excluded.ids, scales = excluded.scales, vecs = excluded.vecs",
      l.id,
      bytesOf(ids),
      bytesOf(scales),
      bytesOf(vecs),
    );
    db.run(
      "UPDATE vector_lists SET size = ?, fresh = 1, block_max = ?, tail = 0 WHERE id = ?",
      rows.length,
      rows.length > 0 ? (rows[rows.length - 1] as { rowid: number }).rowid : 0,
      l.id,
    );
    budget -= rows.length;
  }
  return budget < BLOCK_BUDGET;
}
