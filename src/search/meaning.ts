/**
 * What a query brings to the ranking beyond its own words (docs/search.md):
 * - expansion: its single words' common synonyms and broader words from the
 *   bundled WordNet table (./expand.ts), weighted below the literal terms;
 * - semantic: in hybrid mode, the entities nearest to it in meaning
 *   (./semantic/), as a ranked list that ./rank.ts fuses with the lexical
 *   order by reciprocal rank fusion.
 * Both feed `rankQuery` (./rank.ts) through searchGraph and recall.
 */
import { idsByName } from "../graph/rows";
import { parseKey } from "../items";
import type { Db } from "../storage/sql";
import { expandQuery, type WeightedTerm } from "./expand";
import type { RankedId } from "./fuse";
import type { RecallMode } from "./recall";
import type { ParsedQuery } from "./query";
import type { Neighbour } from "./semantic";

/** Items asked of the vectors per query in hybrid mode: the semantic list fused with the lexical one. */
export const SEMANTIC_CANDIDATES = 50;
/**
 * The ranking's share of an expansion's weights (./expand.ts: synonyms 0.5, broader words 0.3). A synonym's
 * matches add to its query word's frequency (./rank.ts); at half weight a short observation saying only the synonym
 * would outrank a long one saying the word itself, so the ranking takes half again: literal matches rank first, and
 * `npm run bench:recall` finds the same hit@5 at both scales (docs/search.md).
 */
const EXPANSION_SCALE = 0.5;

/** The expansion terms for `query`: synonyms of its plain single words (compounds and CJK runs are matched as written). */
export function expansionFor(query: ParsedQuery): WeightedTerm[] {
  const words = query.terms.filter((t) => !t.cjk && t.parts.length === 1).map((t) => t.key);
  return expandQuery(words)
    .filter((t) => t.weight < 1)
    .map((t) => ({ ...t, weight: t.weight * EXPANSION_SCALE }));
}

/** The entities among `near` (best first), as ranked ids for fusion; files and documents are left to their own ranking. */
export function semanticEntities(db: Db, near: readonly Neighbour[]): RankedId[] {
  const names: { name: string; similarity: number }[] = [];
  for (const n of near) {
    const ref = parseKey(n.key);
    if (ref?.kind === "entity") names.push({ name: ref.name, similarity: n.similarity });
  }
  const ids = idsByName(
    db,
    names.map((n) => n.name),
  );
  return names.flatMap((n) => {
    const id = ids.get(n.name);
    return id === undefined ? [] : [{ id, score: n.similarity }];
  });
}

/** The mode a search ran in, for recall's answer and the docs. */
export function searchMode(expansion: readonly WeightedTerm[] | undefined, semantic: readonly RankedId[] | undefined): RecallMode {
  if (semantic !== undefined) return "hybrid";
  return expansion !== undefined && expansion.length > 0 ? "lexical+expansion" : "lexical";
}
