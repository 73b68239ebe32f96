/**
 * Offline query expansion: a query's words and, at a lower weight, their
 * common synonyms and near hypernyms from WordNet ("automobile" also looks
 * for "car", "physician" for "doctor"), so the default mode finds
 * paraphrases without a model. The table is compiled at build time
 * (scripts/build-synonyms.mjs -> ./synonyms.generated.ts) and parsed once per
 * isolate, on first use.
 *
 * ## Invariants
 * - The literal terms come first, in their order, at weight 1; every added
 *   term weighs less (SYNONYM_WEIGHT, HYPERNYM_WEIGHT), so a literal match
 *   outranks a paraphrase of equal strength.
 * - Added terms are plain lower-case words, the form tokenize() gives a
 *   single word, never a stop word, a query term or a duplicate: they reach
 *   the index through the same stemming as the literal terms (FTS5's porter
 *   stemmer stems both at query time).
 * - A word is looked up as given and then as its WordNet base forms
 *   ("automobiles" -> "automobile", "married" -> "marry").
 * - At most MAX_PER_TERM added terms per query term and MAX_ADDED in all.
 */
import { STOP_WORDS } from "./stopwords";
import { SYNONYM_TABLE } from "./synonyms.generated";

export interface WeightedTerm {
  term: string;
  weight: number;
  /** For an added term, the query word it stands for. */
  of?: string;
  /** A broader word (a WordNet hypernym), not a synonym: it adds to an item's score but never finds an item on its own (docs/search.md, "Nothing is better than filler"). */
  broader?: true;
}

/** Weight of a word that shares a sense with a query word, and of a broader word for it. */
export const SYNONYM_WEIGHT = 0.5;
export const HYPERNYM_WEIGHT = 0.3;
export const MAX_PER_TERM = 4;
export const MAX_ADDED = 24;

interface Related {
  synonyms: string[];
  hypernyms: string[];
}

let table: Map<string, Related> | undefined;

function relatedTable(): Map<string, Related> {
  if (table) return table;
  table = new Map();
  for (const line of SYNONYM_TABLE.split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const [syn = "", hyp = ""] = line.slice(colon + 1).split(";");
    table.set(line.slice(0, colon), { synonyms: syn ? syn.split(",") : [], hypernyms: hyp ? hyp.split(",") : [] });
  }
  return table;
}

// WordNet's detachment rules (morphy), every part of speech: suffix -> replacement; "ied", "ier" and "iest"
// stand in for its exception lists, which the package does not ship ("married" -> "marry").
const DETACH: readonly [string, string][] = [
  ["ies", "y"],
  ["ied", "y"],
  ["ier", "y"],
  ["iest", "y"],
  ["ses", "s"],
  ["xes", "x"],
  ["zes", "z"],
  ["ches", "ch"],
  ["shes", "sh"],
  ["men", "man"],
  ["es", "e"],
  ["es", ""],
  ["s", ""],
  ["ed", "e"],
  ["ed", ""],
  ["ing", "e"],
  ["ing", ""],
  ["er", ""],
  ["est", ""],
  ["er", "e"],
  ["est", "e"],
];

/** The table's entry for `word` or, failing that, for its first base form the table holds. */
function lookup(word: string): Related | undefined {
  const t = relatedTable();
  const direct = t.get(word);
  if (direct) return direct;
  for (const [suffix, replacement] of DETACH) {
    if (word.length > suffix.length + 2 && word.endsWith(suffix)) {
      const found = t.get(word.slice(0, -suffix.length) + replacement);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * The terms to search for `terms` (query terms' keys, as tokenize() gives
 * them): each of them at weight 1, then the words related to them, weighted
 * below 1, best first.
 */
export function expandQuery(terms: readonly string[]): WeightedTerm[] {
  const out: WeightedTerm[] = [];
  const seen = new Set<string>();
  for (const term of terms) {
    if (seen.has(term)) continue;
    seen.add(term);
    out.push({ term, weight: 1 });
  }
  const added: WeightedTerm[] = [];
  for (const term of terms) {
    const related = lookup(term);
    if (!related) continue;
    let taken = 0;
    const candidates = [
      ...related.synonyms.map((w) => ({ term: w, weight: SYNONYM_WEIGHT, of: term })),
      ...related.hypernyms.map((w) => ({ term: w, weight: HYPERNYM_WEIGHT, of: term, broader: true as const })),
    ];
    for (const c of candidates) {
      if (taken >= MAX_PER_TERM) break;
      if (seen.has(c.term) || STOP_WORDS.has(c.term)) continue;
      seen.add(c.term);
      added.push(c);
      taken++;
    }
  }
  // Stable: synonyms before hypernyms, each in query order.
  added.sort((a, b) => b.weight - a.weight);
  return [...out, ...added.slice(0, MAX_ADDED)];
}
