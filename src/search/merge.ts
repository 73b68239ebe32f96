/**
 * FTS5 merge work off the write path. Every transaction that indexes
 * documents adds a segment to each search index (src/search/indexer.ts), and
 * by default FTS5 folds segments together inside that same write
 * ('automerge'), so a write now and then pays for merging earlier writes'
 * segments, more of it the larger the index. Here writes never merge: the
 * object's alarm does, in slices of bounded work, between calls
 * (src/context/upkeep.ts).
 *
 * ## Policy (FTS5 keeps it in each index's `<table>_config`)
 * - `automerge` 0: an INSERT into an index never merges segments.
 * - `usermerge` MERGE_LEVEL_SEGMENTS: a slice merges a level of the index
 *   once it holds that many segments, as automerge would have.
 * - `crisismerge` is left at FTS5's default (16): should the alarm fall
 *   behind (it is delayed, or fails), a write merges a level that reached 16
 *   segments itself, so segments never pile up without bound.
 * `applyMergePolicy` sets it when it differs (on every start of the object,
 * after the migrations; a fresh or purged object gets it at once), so
 * existing contexts take it up without a migration.
 *
 * ## A slice
 * One FTS5 'merge' command per index with a positive budget of
 * MERGE_SLICE_PAGES pages: it merges levels that hold at least usermerge
 * segments, continuing an unfinished merge first, and stops once it wrote
 * about that many pages. FTS5 counts a 'merge' that did work as two or more
 * changes (`total_changes()`): a slice that did no work in either index means
 * none is left, so the alarm re-arms only while slices still find work.
 * Merging changes how the postings are stored, never what a search finds.
 *
 * The full compaction after a bulk load (./compact.ts) is separate: it merges
 * each index into one segment once writes have paused.
 */
import type { Db } from "../storage/sql";
import { SEARCH_INDEXES } from "./compact";

/** Segments on one level that make it due for a merge (FTS5's own default for automerge is 4). */
export const MERGE_LEVEL_SEGMENTS = 4;
/** Pages one slice merges per index at most: a slice short enough not to hold calls up for long. */
export const MERGE_SLICE_PAGES = 200;

/** What each index's configuration should hold: (key, value) pairs for FTS5's config commands. */
const POLICY: readonly (readonly [key: string, value: number])[] = [
  ["automerge", 0],
  ["usermerge", MERGE_LEVEL_SEGMENTS],
];

/** Sets the merge policy on both search indexes where it differs; returns how many settings it changed. Run it inside a transaction. */
export function applyMergePolicy(db: Db): number {
  let changed = 0;
  for (const index of SEARCH_INDEXES) {
    for (const [key, value] of POLICY) {
      const held = db.one<{ v: SqlStorageValue }>(`SELECT v FROM ${index}_config WHERE k = ?`, key)?.v;
      if (held !== undefined && Number(held) === value) continue;
      // Literals (constants above): FTS5 takes a setting only as an SQL integer, and workerd binds a JS number as a real.
      db.run(`INSERT INTO ${index} (${index}, rank) VALUES ('${key}', ${Math.trunc(value)})`);
      changed++;
    }
  }
  return changed;
}

/**
 * One bounded slice of merge work: an FTS5 'merge' of up to `pages` pages in
 * each index. Returns whether either did any work, i.e. whether another slice
 * may find more. Run it inside a transaction.
 */
export function mergeSlice(db: Db, pages = MERGE_SLICE_PAGES): boolean {
  let worked = false;
  for (const index of SEARCH_INDEXES) {
    const before = totalChanges(db);
    db.run(`INSERT INTO ${index} (${index}, rank) VALUES ('merge', ?)`, pages);
    if (totalChanges(db) - before >= 2) worked = true;
  }
  return worked;
}

const totalChanges = (db: Db) => db.one<{ n: number }>("SELECT total_changes() AS n")?.n ?? 0;
