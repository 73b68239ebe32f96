/**
 * A query's terms as every kind ranks them (entities in ./rank.ts, files
 * and documents in src/items/text-rank.ts): its own terms at weight 1,
 * then the expansion's (./expand.ts) that are new, each with its idf.
 *
 * ## One idf per term, over the whole context
 * idf_t = ln(1 + (N − df + 0.5) / (df + 0.5)) (Lucene's, always positive),
 * where N counts the context's documents of every kind (the entity index's
 * names and observations, ./match.ts readCorpus, plus every file and every
 * document) and df those holding the term, each counted. So a word weighs
 * the same in an entity, a file and a document, and recall can sort the
 * three by one score; a kind with few items (two files) does not get an idf
 * of its own that its size caps (ln 2 for a word in one of two files).
 * A synonym is worth at most the word it stands for.
 */
import { countDocuments } from "../documents/search";
import { countFiles } from "../files/search";
import type { TextQueryTerm } from "../items";
import type { Db } from "../storage/sql";
import type { WeightedTerm } from "./expand";
import { expression, readCorpus, termCounts } from "./match";
import type { ParsedQuery } from "./query";
import { idfFactor } from "./score";
import { tokenize, type QueryTerm } from "./tokenize";

export interface RankTerm extends TextQueryTerm {
  term: QueryTerm;
  /** No name or type holds the term as a word, so names holding it as a substring (the trigram index) count. */
  substring: boolean;
}

/** The query's terms, then the expansion's that are new, each with its weight. */
function weighted(query: ParsedQuery, expansion: readonly WeightedTerm[]): Omit<RankTerm, "idf" | "substring">[] {
  const out: Omit<RankTerm, "idf" | "substring">[] = query.terms.map((term, index) => ({ term, weight: 1, index }));
  const literal = new Map(out.map((t, i) => [t.term.key, i]));
  const seen = new Set(out.map((t) => t.term.key));
  for (const e of expansion) {
    if (!(e.weight > 0)) continue;
    for (const term of tokenize(e.term)) {
      if (seen.has(term.key)) continue;
      seen.add(term.key);
      out.push({ term, weight: Math.min(1, e.weight), index: -1, of: e.of === undefined ? undefined : literal.get(e.of), broader: e.broader });
    }
  }
  return out;
}

/** Each term of `query` and `expansion` with its idf over the whole context (see the module comment), and whether names count by substring. */
export function queryTerms(db: Db, query: ParsedQuery, expansion: readonly WeightedTerm[]): RankTerm[] {
  const terms = weighted(query, expansion);
  const words = terms.map((t) => t.term);
  const files = countFiles(db, words);
  const documents = countDocuments(db, words);
  const n = readCorpus(db).documents + files.items + documents.items;
  const idfs: number[] = [];
  return terms.map((t, i) => {
    const counts = termCounts(db, expression(t.term));
    const df = counts.documents + (files.holding[i] ?? 0) + (documents.holding[i] ?? 0);
    // The literal terms come first, so the word a synonym stands for has its idf already.
    const own = idfFactor(df, n);
    const idf = t.of === undefined ? own : Math.min(own, idfs[t.of] ?? own);
    idfs.push(idf);
    return { ...t, idf, substring: counts.names === 0 && [...t.term.key].length >= 3 };
  });
}
