/**
 * How a MemoryContext's database gets ready, when the object starts and
 * again once a purge has wiped it:
 *
 * - the schema: every pending migration, in order (src/storage/migrations.ts);
 * - FTS5 merging left to the alarm (src/search/segments.ts); at start the search
 *   indexes also catch up with whatever a migration left to index;
 * - the embedder (null: lexical mode). A change of model drops the other
 *   model's vectors and queues every item (src/search/semantic/queue.ts);
 *   items to embed, or an index to build, wake the alarm, which does it in
 *   steps.
 */
import { flushSearchIndex } from "../search/indexer";
import { applySegmentPolicy } from "../search/segments";
import { configureEmbedding, embeddingQueued, indexBehind, WorkersAiEmbedder, type Embedder } from "../search/semantic";
import type { Settings } from "../settings";
import { migrate } from "../storage/migrations";
import type { Db } from "../storage/sql";
import { applyRegistration } from "./registration";
import type { Upkeep } from "./upkeep";

type Transaction = <T>(fn: () => T) => T;

/** At start: the pending migrations, then the segment policy and whatever they left to index. */
export function openDatabase(db: Db, transaction: Transaction): void {
  migrate(db, transaction);
  transaction(() => {
    applySegmentPolicy(db);
    flushSearchIndex(db);
  });
}

/** After a purge's deleteAll: the empty schema again, marked purged, so the object refuses every call until a registration is pushed (./registration.ts). */
export function recreatePurged(db: Db, transaction: Transaction, name: string): void {
  migrate(db, transaction);
  transaction(() => {
    applySegmentPolicy(db);
    applyRegistration(db, { name, status: "purged" });
  });
}

/** Workers AI over the `AI` binding, when the deployment has one (and valid settings). */
export function deploymentEmbedder(ai: Ai | undefined, config: () => Settings): Embedder | null {
  if (!ai) return null;
  try {
    return new WorkersAiEmbedder(ai, config().EMBEDDING_MODEL);
  } catch (error) {
    // Bad settings: every call is refused with the same message, so no model is set (nothing is dropped either way).
    console.error(JSON.stringify({ event: "embedder_unavailable", error: String(error) }));
    return null;
  }
}

/** Sets the embedder `upkeep` uses, and wakes the alarm when there is something to embed or index. */
export function useEmbedder(db: Db, transaction: Transaction, upkeep: Upkeep, embedder: Embedder | null, now: () => number): void {
  transaction(() => configureEmbedding(db, embedder?.model ?? null, now()));
  upkeep.embedder = embedder;
  // An existing context's vectors need their index built once.
  if (embedder && (embeddingQueued(db) || indexBehind(db, embedder.model))) upkeep.schedule(now());
}
