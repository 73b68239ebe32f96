/**
 * recall's provenance (`provenance: true`): who wrote each item's matched
 * text and when, added to the packed items after packing (so the budget
 * holds the items as ranked; `by` and `at` come on top of it).
 *
 * An entity's text shows its best observations, first the best; its `by`
 * and `at` are those of the first observation the text shows
 * (src/graph/provenance.ts). A file's or document's are those of the last
 * change to it (src/history/provenance.ts). An item whose writer is not
 * known (history trimmed) has neither.
 */
import { observationProvenance } from "../graph/provenance";
import { lastWrite } from "../history/provenance";
import type { Db } from "../storage/sql";
import type { RecallItem } from "./pack";

/** Characters of an observation's start looked for in an item's text (which cuts and flattens each one). */
const PROBE_CHARS = 40;

const flat = (s: string) => s.replace(/\s+/g, " ").trim();

/** Who wrote `item`'s matched text and when (ISO), if known. */
function writerOf(db: Db, item: RecallItem): { by: string; at: string } | undefined {
  if (item.kind === "entity") {
    const shown = observationProvenance(db, item.name)
      .map((p) => ({ p, pos: item.text.indexOf(flat(p.observation).slice(0, PROBE_CHARS)) }))
      .filter((x) => x.pos >= 0)
      .sort((a, b) => a.pos - b.pos)[0]?.p;
    if (shown) return { by: shown.by, at: shown.at };
  }
  const last = lastWrite(db, item.key);
  return last ? { by: last.by, at: new Date(last.at).toISOString() } : undefined;
}

/** The items with `by` and `at` added where known. */
export function withProvenance(db: Db, items: readonly RecallItem[]): (RecallItem & { by?: string; at?: string })[] {
  return items.map((item) => ({ ...item, ...writerOf(db, item) }));
}
