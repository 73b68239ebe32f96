/**
 * The embedding queue: which model a context embeds with, catching the queue
 * up in batches (the object's alarm, src/context/upkeep.ts), and how far it
 * lags. What waits is the queue table plus the entities and observations
 * above the watermarks (new rows: foldAppends moves their entities into the
 * queue); the triggers of migrations/0015_embeddings.sql queue every other
 * write and keep vectors in step with deletes and renames, in the writes' own
 * transactions. Nothing here runs on a write's path.
 *
 * ## Lifecycle
 * - configureEmbedding runs when the object starts: a context whose model
 *   changed (or that gained one) drops the other model's vectors and queues
 *   every item without a vector of this one (entities by lowering the
 *   watermarks to 0); a context that lost its model drops vectors and queue
 *   (it searches lexically until one is set again).
 * - Stored vectors go into the nearest list of the IVF index when the
 *   context has one (./ivf.ts); the alarm keeps that index (indexStep).
 * - catchUp first folds new rows into the queue, then takes the oldest BATCH items, reads their text, awaits the model
 *   (other calls run meanwhile), then in one transaction stores the vector of
 *   each item whose queue entry is unchanged: an item written again during
 *   the call keeps its place (a newer version) and is embedded next time; a
 *   deleted one left the queue with its vector, so nothing is stored for it.
 */
import { itemRef, type ItemKind } from "../../items";
import type { Db } from "../../storage/sql";
import { MAX_TEXT_CHARS as TEXT_CHARS, type Embedder } from "./embedder";
import { lists, nearestList } from "./ivf";
import { currentModel, storeVector } from "./vectors";

/** Items embedded per model round trip (and per alarm run: the alarm runs again at once while items wait). */
const BATCH = 50;

type SearchMode = "lexical" | "hybrid";

export interface EmbeddingStatus {
  mode: SearchMode;
  /** The model the vectors come from; null in lexical mode. */
  model: string | null;
  /** Items with a vector. */
  embedded: number;
  /** Items waiting to be embedded, and how long the oldest has waited (ms; 0 when none). */
  queued: number;
  oldestQueuedMs: number;
}

/** Sets the context's model (null: none); call in a transaction. Returns whether anything changed. */
export function configureEmbedding(db: Db, model: string | null, now: number): boolean {
  const was = currentModel(db);
  if (was === model) return false;
  // Every entity is then above the watermarks: the next fold queues them all.
  db.run("UPDATE embed_state SET model = ?, entity_wm = 0, observation_wm = 0", model);
  if (model === null) {
    db.run("DELETE FROM embeddings");
    db.run("DELETE FROM embed_queue");
    db.run("DELETE FROM vector_lists");
    return true;
  }
  db.run("DELETE FROM embeddings WHERE model <> ?", model);
  db.run("DELETE FROM vector_lists WHERE model <> ?", model);
  const missing = (kind: ItemKind, table: string, column: string) =>
    db.run(
      `INSERT INTO embed_queue (key, queued_at) SELECT '${kind}:' || ${column}, ?1 FROM ${table}
       WHERE '${kind}:' || ${column} NOT IN (SELECT key FROM embeddings) ON CONFLICT (key) DO NOTHING`,
      now,
    );
  missing("file", "files", "path");
  missing("doc", "documents", "id");
  return true;
}

interface Watermarks extends Record<string, SqlStorageValue> {
  model: string | null;
  entity_wm: number;
  observation_wm: number;
  max_entity: number;
  max_observation: number;
}

const watermarks = (db: Db): Watermarks | undefined =>
  db.one<Watermarks>(
    `SELECT model, entity_wm, observation_wm, coalesce((SELECT max(id) FROM entities), 0) AS max_entity,
       coalesce((SELECT max(id) FROM observations), 0) AS max_observation FROM embed_state`,
  );

/** Whether entities or observations were added above the watermarks while a model is set. */
const appended = (w: Watermarks | undefined): w is Watermarks => !!w && w.model !== null && (w.max_entity > w.entity_wm || w.max_observation > w.observation_wm);

/**
 * Queues the entities that got rows above the watermarks (new entities, new
 * observations), at the time of their first new row, and raises the
 * watermarks; call in a transaction. An entity already queued gets a newer
 * version, so a vector in flight for its older text is not stored.
 */
export function foldAppends(db: Db): void {
  const w = watermarks(db);
  if (!appended(w)) return;
  db.run(
    `INSERT INTO embed_queue (key, queued_at)
     SELECT 'entity:' || e.name, min(t.at) FROM (
       SELECT id AS entity_id, created_at AS at FROM entities WHERE id > ?1
       UNION ALL SELECT entity_id, created_at AS at FROM observations NOT INDEXED WHERE id > ?2
     ) AS t JOIN entities e ON e.id = t.entity_id GROUP BY e.id
     ON CONFLICT (key) DO UPDATE SET version = version + 1`,
    w.entity_wm,
    w.observation_wm,
  );
  db.run("UPDATE embed_state SET entity_wm = ?, observation_wm = ?", w.max_entity, w.max_observation);
}

/** The text an item is embedded from: undefined when the item does not exist. */
function itemText(db: Db, key: string): string | undefined {
  const ref = itemRef(key);
  if (!ref) return undefined;
  const row =
    ref.kind === "entity"
      ? db.one<{ text: string }>(
          `SELECT e.name || ' (' || e.entity_type || ')' || coalesce(char(10) || (
             SELECT group_concat(content, char(10)) FROM (SELECT content FROM observations WHERE entity_id = e.id ORDER BY id LIMIT 64)), '') AS text
           FROM entities e WHERE e.name = ?`,
          ref.name,
        )
      : ref.kind === "file"
        ? db.one<{ text: string }>(`SELECT path || char(10) || substr(content, 1, ${TEXT_CHARS}) AS text FROM files WHERE path = ?`, ref.name)
        : db.one<{ text: string }>(`SELECT title || char(10) || substr(content, 1, ${TEXT_CHARS}) AS text FROM documents WHERE id = ?`, ref.name);
  return row?.text.slice(0, TEXT_CHARS);
}

/**
 * Embeds the oldest queued items (at most `limit`) with `embedder` and
 * stores their vectors. `transaction` is the storage's transactionSync.
 * Returns how many it took from the queue, how many vectors it stored and
 * how many items still wait. Throws when the model call fails (the queue is
 * unchanged; the caller retries later).
 */
export async function catchUp(
  db: Db,
  transaction: <T>(fn: () => T) => T,
  embedder: Embedder,
  now: () => number,
  limit = BATCH,
): Promise<{ taken: number; embedded: number; remaining: number }> {
  const remaining = () => db.one<{ n: number }>("SELECT count(*) AS n FROM embed_queue")?.n ?? 0;
  if (currentModel(db) !== embedder.model) return { taken: 0, embedded: 0, remaining: remaining() };
  transaction(() => foldAppends(db));
  const queued = db.all<{ key: string; version: number }>("SELECT key, version FROM embed_queue ORDER BY queued_at, key LIMIT ?", limit);
  const items: { key: string; version: number; text: string }[] = [];
  const gone: { key: string; version: number }[] = [];
  for (const q of queued) {
    const text = itemText(db, q.key);
    if (text === undefined) gone.push(q);
    else items.push({ ...q, text });
  }
  if (gone.length > 0) {
    transaction(() => {
      for (const q of gone)
        if (db.run("DELETE FROM embed_queue WHERE key = ? AND version = ?", q.key, q.version) === 1) db.run("DELETE FROM embeddings WHERE key = ?", q.key);
    });
  }
  if (items.length === 0) return { taken: queued.length, embedded: 0, remaining: remaining() };
  const vectors = await embedder.embed(items.map((i) => i.text));
  const embedded = transaction(() => {
    // The model may have changed while the call ran (a restart with other settings): these vectors are not its.
    if (currentModel(db) !== embedder.model) return 0;
    let stored = 0;
    // Each vector goes straight into its nearest IVF list, read in this transaction (the alarm splits lists between calls).
    const index = lists(db, embedder.model);
    items.forEach((item, i) => {
      const vector = vectors[i];
      if (!vector || db.run("DELETE FROM embed_queue WHERE key = ? AND version = ?", item.key, item.version) !== 1) return;
      storeVector(db, item.key, embedder.model, vector, now(), nearestList(index, vector));
      stored++;
    });
    return stored;
  });
  return { taken: queued.length, embedded, remaining: remaining() };
}

/** The mode a context searches in and how far its embeddings lag, for memory_stats and the web page; call in a transaction (it folds new rows into the queue). */
export function embeddingStatus(db: Db, now: number): EmbeddingStatus {
  foldAppends(db);
  const model = currentModel(db);
  const s = db.one<{ embedded: number; queued: number; oldest: number | null }>(
    "SELECT (SELECT count(*) FROM embeddings) AS embedded, (SELECT count(*) FROM embed_queue) AS queued, (SELECT min(queued_at) FROM embed_queue) AS oldest",
  );
  return {
    mode: model === null ? "lexical" : "hybrid",
    model,
    embedded: s?.embedded ?? 0,
    queued: s?.queued ?? 0,
    oldestQueuedMs: s?.oldest == null ? 0 : Math.max(0, now - s.oldest),
  };
}

/** Whether any item waits to be embedded (after a write: the alarm must run). */
export const embeddingQueued = (db: Db): boolean =>
  appended(watermarks(db)) || (db.one<{ q: number }>("SELECT EXISTS (SELECT 1 FROM embed_queue) AS q")?.q ?? 0) === 1;
