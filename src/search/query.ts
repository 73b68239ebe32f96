/**
 * A search query, parsed once where it enters search: the text as given,
 * its terms (./tokenize.ts) and its name key (src/graph/names.ts). Ranking,
 * expansion, recall and alias lookup all read this one value, so no step
 * further in splits the text again.
 */
import { normalName } from "../graph/names";
import { tokenize, type QueryTerm } from "./tokenize";

export interface ParsedQuery {
  /** The text as given: what an embedder reads, and what recall checks for emptiness. */
  readonly raw: string;
  /** Its terms in order, as tokenize() gives them; empty when nothing in it is searchable. */
  readonly terms: readonly QueryTerm[];
  /** The whole text as an entity name in normal form: an alias with this key names the entity it was merged into. */
  readonly nameKey: string;
}

export function parseQuery(raw: string): ParsedQuery {
  return { raw, terms: tokenize(raw), nameKey: normalName(raw).key };
}
