/**
 * FTS5 segment merging off the write path. Every transaction that indexes
 * documents adds a segment to each search index (src/search/indexer.ts), and
 * by default FTS5 folds segments together inside that same write
 * ('automerge'), so a write now and then pays for merging earlier writes'
 * segments, more of it the larger the index. Here writes never merge: the
 * object's alarm does, in slices of bounded work, between calls
 * (src/context/upkeep.ts).
 *
 * ## Policy (FTS5 keeps it in each index's `<table>_config`)
 * - `automerge` 0: an INSERT into an index never merges segments.
 * - `usermerge` SEGMENTS_PER_LEVEL: a slice merges a level of the index
 *   once it holds that many segments, as automerge would have.
 * - `crisismerge` is left at FTS5's default (16): should the alarm fall
 *   behind (it is delayed, or fails), a write merges a level that reached 16
 *   segments itself, so segments never pile up without bound.
 * `applySegmentPolicy` sets it when it differs (on every start of the object,
 * after the migrations; a fresh or purged object gets it at once), so
 * existing contexts take it up without a migration.
 *
 * ## A slice
 * One FTS5 'merge' command per index with a positive budget of
 * SEGMENT_SLICE_PAGES pages: it merges levels that hold at least usermerge
 * segments (a merge that fills a level merges that level next), continuing
 * an unfinished merge first, and stops once it wrote that many pages or
 * nothing is due. Every page it writes is a row of the index's `_data`
 * table, so it counts in `total_changes()`: a 'merge' whose changes stay
 * below the budget stopped because nothing was left, and only a slice that
 * may have been cut short asks for another (each alarm run is a billed
 * request, so a small merge costs one run, not two).
 * Merging changes how the postings are stored, never what a search finds.
 *
 * The full compaction after a bulk load (./compact.ts) is separate: it merges
 * each index into one segment once writes have paused.
 */
import type { Db } from "../storage/sql";
import { SEARCH_INDEXES } from "./compact";

/** Segments on one level that make it due for a merge (FTS5's own default for automerge is 4). */
export const SEGMENTS_PER_LEVEL = 4;
/** Pages one slice merges per index at most: a slice short enough not to hold calls up for long. */
export const SEGMENT_SLICE_PAGES = 200;

/** What each index's configuration should hold: (key, value) pairs for FTS5's config commands. */
const POLICY: readonly (readonly [key: string, value: number])[] = [
  ["automerge", 0],
  ["usermerge", SEGMENTS_PER_LEVEL],
];

/** Sets the merge policy on both search indexes where it differs; returns how many settings it changed. Run it inside a transaction. */
export function applySegmentPolicy(db: Db): number {
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
 * each index. Returns whether either may have been cut short by the budget,
 * i.e. whether another slice may find more (false: no merge is due in
 * either). Run it inside a transaction.
 */
export function mergeSegments(db: Db, pages = SEGMENT_SLICE_PAGES): boolean {
  let more = false;
  for (const index of SEARCH_INDEXES) {
    const before = totalChanges(db);
    db.run(`INSERT INTO ${index} (${index}, rank) VALUES ('merge', ?)`, pages);
    // A 'merge' that did nothing still counts one change (FTS5: two or more means it did work).
    if (totalChanges(db) - before >= Math.max(2, pages)) more = true;
  }
  return more;
}

const totalChanges = (db: Db) => db.one<{ n: number }>("SELECT total_changes() AS n")?.n ?? 0;
