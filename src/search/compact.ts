/**
 * Compaction of the search indexes. FTS5 stores each index (search_words,
 * search_grams) as a set of b-tree segments: every transaction that indexes
 * documents adds one, and FTS5's automerge folds them together as they pile
 * up, so after a bulk load an index holds several segments of similar size
 * and every term lookup seeks each of them; merged into one, the lookups
 * take markedly less time (docs/search.md#indexes-and-guarantees).
 *
 * The alarm (src/context/upkeep.ts) merges them into one segment per index,
 * in bounded steps, once writes have paused.
 *
 * ## Rules
 * - Due when an index of at least COMPACT_MIN_PAGES holds more than one
 *   segment and the segments besides its largest add up to at least
 *   COMPACT_RATIO of the largest: a full merge then rewrites at most
 *   1 + 1 / COMPACT_RATIO pages per page written since the previous one, so a
 *   few small writes never make a large index be rewritten (between
 *   compactions, automerge keeps small segments in check).
 * - A step is one FTS5 'merge' command with a negative budget of
 *   COMPACT_STEP_PAGES pages: it puts every segment on one level and merges
 *   them, continuing where the previous step stopped. search_state.compacting
 *   says a compaction is under way until every index is one segment, so a
 *   half-done merge is always finished even though the ratio changes as it
 *   proceeds.
 * - Merging changes how FTS5 stores the postings, not what they hold: a
 *   search finds the same documents before, during and after.
 *
 * Segment sizes are read from FTS5's own `<table>_idx` shadow table (one row
 * per leaf page that starts a term, keyed by segment id): read only, as a
 * measure of each segment's size.
 */
import type { Db } from "../storage/sql";

/** The FTS5 indexes compacted, in the order steps visit them. */
export const SEARCH_INDEXES = ["search_words", "search_grams"] as const;
type SearchIndex = (typeof SEARCH_INDEXES)[number];

/** Pages merged per step at most: a step short enough not to hold calls up for long (its time: docs/search.md#indexes-and-guarantees). */
const COMPACT_STEP_PAGES = 400;
/** The other segments' share of the largest that makes a compaction due. */
const COMPACT_RATIO = 0.25;
/** Leaf pages an index needs before it is compacted: seeking a few small segments costs next to nothing. */
export const COMPACT_MIN_PAGES = 32;

export interface IndexShape {
  index: SearchIndex;
  segments: number;
  /** Leaf pages of the largest segment and of all the others. */
  largest: number;
  rest: number;
}

export function indexShape(db: Db, index: SearchIndex): IndexShape {
  const sizes = db.tuples<[pages: number]>(["pages"], `SELECT count(*) AS pages FROM ${index}_idx GROUP BY segid`).map(([n]) => n);
  const largest = Math.max(0, ...sizes);
  const total = sizes.reduce((sum, n) => sum + n, 0);
  return { index, segments: sizes.length, largest, rest: total - largest };
}

const due = (s: IndexShape) => s.segments > 1 && s.rest >= COMPACT_RATIO * s.largest && s.largest + s.rest >= COMPACT_MIN_PAGES;

/** Whether a compaction is under way (it spans several steps). */
export function compacting(db: Db): boolean {
  return db.one<{ compacting: number }>("SELECT compacting FROM search_state")?.compacting === 1;
}

/** One FTS5 'merge' of up to COMPACT_STEP_PAGES pages in `index`, all its segments taken as one level. */
const mergeStep = (db: Db, index: SearchIndex) => db.run(`INSERT INTO ${index} (${index}, rank) VALUES ('merge', ?)`, -COMPACT_STEP_PAGES);

const sameShape = (a: IndexShape, b: IndexShape) => a.segments === b.segments && a.largest === b.largest && a.rest === b.rest;

/**
 * One bounded step: starts a compaction when one is due, merges up to
 * COMPACT_STEP_PAGES pages of the first index not yet in one segment, and
 * ends the compaction when none is left. Returns whether more steps are
 * needed. Run it inside a transaction. A step that changes nothing ends the
 * compaction too (logged): the alarm never loops on an index FTS5 will not
 * merge. `merge` is the step's FTS5 command (tests replace it).
 */
export function compactionStep(db: Db, merge: (db: Db, index: SearchIndex) => void = mergeStep): boolean {
  const shapes = SEARCH_INDEXES.map((index) => indexShape(db, index));
  if (!compacting(db)) {
    if (!shapes.some(due)) return false;
    db.run("UPDATE search_state SET compacting = 1");
  }
  const next = shapes.find((s) => s.segments > 1);
  let more = false;
  if (next) {
    merge(db, next.index);
    const merged = indexShape(db, next.index);
    more = merged.segments > 1 || shapes.some((s) => s !== next && s.segments > 1);
    if (sameShape(merged, next)) {
      console.warn(JSON.stringify({ event: "compaction_stalled", index: next.index, segments: next.segments }));
      more = false;
    }
  }
  if (!more) db.run("UPDATE search_state SET compacting = 0");
  return more;
}
