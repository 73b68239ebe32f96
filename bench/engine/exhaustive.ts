/**
 * The depth bench's reference: engram's documented whole-query score
 * (docs/search.md, "Score the whole query") computed for every entity of a
 * context that matches any query term, with no window, cap or budget, inside
 * the object, over the same FTS5 index the search reads.
 *
 *   tf~_t(e) = LABEL_WEIGHT × label_t / B(label) + Σ over observations o holding t of 1 / B(o)
 *   lexical  = Σ_t w_t × idf_t × sat(tf~) + phrase bonus
 *   score    = lexical × connection × recency × √priority
 *
 * What "exhaustive" means here, term by term:
 * - A term's documents are its whole doclist (`MATCH` with no `LIMIT`), with
 *   the search's own MATCH expression, so stems, compounds and CJK bigrams
 *   match exactly as they do for the search.
 * - df is counted, not estimated from a window; idf = ln(1 + (N − df + 0.5) / (df + 0.5))
 *   with N as the search takes it (the highest observation and entity ids). The search also
 *   counts files and documents in N and df (src/search/terms.ts); the bench's contexts hold none.
 * - A name holding the term only as a substring (the trigram index) counts
 *   SUBSTRING_WEIGHT when no name or type holds it as a word, as in the search.
 * - The phrase bonus goes to every entity with a document matching NEAR of an
 *   adjacent pair of the query's own terms (the whole NEAR doclist).
 * - Expansion terms (synonyms) are weighted, capped at their word's idf and
 *   saturated with their word, as in the search.
 * - Average lengths, recency, connection and priority are the search's own
 *   (the newest 500 documents' average; the entity's stats and priority
 *   columns as stored).
 * Ties go to the lower id, as in the search.
 *
 * It reads whole doclists into JavaScript and scores them there, apart from
 * the search's own statement (src/search/rank.ts): a bench reference written
 * another way, and a measure of what scoring every match costs.
 */
import { DEFAULT_MODEL, priority, type ModelOptions } from "../../src/priority/model";
import { averageLengths, entityStats, expression, readCorpus } from "../../src/search/match";
import { BM25_B, BM25_K1, LABEL_WEIGHT, PHRASE_BONUS, PHRASE_DISTANCE } from "../../src/search/rank";
import type { WeightedTerm } from "../../src/search/expand";
import { connectionFactor, idfFactor, priorityFactor, recencyFactor, SUBSTRING_WEIGHT } from "../../src/search/score";
import { quote, tokenize, type QueryTerm } from "../../src/search/tokenize";
import type { Db } from "../../src/storage/sql";

export interface Scored {
  id: number;
  score: number;
}

interface Term {
  term: QueryTerm;
  weight: number;
  /** Position among the query's own terms; -1 for an expansion term. */
  index: number;
  /** For an expansion term, the position in the term list of the word it stands for. */
  of?: number;
  idf: number;
}

const saturate = (tf: number) => (tf * (BM25_K1 + 1)) / (BM25_K1 + tf);
const norm = (len: number, avg: number) => 1 - BM25_B + (BM25_B * len) / avg;

/** Every rowid of `table` matching `match` on the side `names` picks (names: rowid < 0). */
const doclist = (db: Db, table: string, match: string, names: boolean): number[] =>
  db.tuples<[doc: number]>(["doc"], `SELECT rowid AS doc FROM ${table} WHERE ${table} MATCH ?1 AND rowid ${names ? "< 0" : "> 0"}`, [match]).map(([d]) => d);

/** Each observation's owner and length, for `ids`. */
function observations(db: Db, ids: readonly number[]): Map<number, { owner: number; len: number }> {
  const out = new Map<number, { owner: number; len: number }>();
  if (ids.length === 0) return out;
  const rows = db.tuples<[id: number, owner: number, len: number]>(
    ["id", "owner", "len"],
    "SELECT id, entity_id AS owner, length(content) AS len FROM observations WHERE id IN (SELECT value FROM json_each(?1))",
    [JSON.stringify(ids)],
  );
  for (const [id, owner, len] of rows) out.set(id, { owner, len });
  return out;
}

/** Every matching entity's score for `query`, best first (see the module comment). */
export function exhaustiveRanking(db: Db, query: string, opts: { now: number; model?: ModelOptions; expansion?: readonly WeightedTerm[] }): Scored[] {
  const terms: Term[] = tokenize(query).map((term, index) => ({ term, weight: 1, index, idf: 0 }));
  const literal = new Map(terms.map((t, i) => [t.term.key, i]));
  const seen = new Set(literal.keys());
  for (const e of opts.expansion ?? []) {
    if (!(e.weight > 0)) continue;
    for (const term of tokenize(e.term)) {
      if (seen.has(term.key)) continue;
      seen.add(term.key);
      terms.push({ term, weight: Math.min(1, e.weight), index: -1, of: e.of === undefined ? undefined : literal.get(e.of), idf: 0 });
    }
  }
  const corpus = readCorpus(db);
  /** entity → term → label weight; observation → terms it holds. */
  const labels = new Map<number, Map<number, number>>();
  const held = new Map<number, number[]>();
  terms.forEach((t, i) => {
    const match = expression(t.term);
    const names = doclist(db, "search_words", match, true).map((d) => -d);
    for (const id of names) {
      const m = labels.get(id) ?? new Map<number, number>();
      m.set(i, 1);
      labels.set(id, m);
    }
    if (names.length === 0 && [...t.term.key].length >= 3) {
      for (const d of doclist(db, "search_grams", quote(t.term.key), true)) {
        const m = labels.get(-d) ?? new Map<number, number>();
        if (!m.has(i)) m.set(i, SUBSTRING_WEIGHT);
        labels.set(-d, m);
      }
    }
    const docs = doclist(db, "search_words", match, false);
    for (const d of docs) {
      const list = held.get(d);
      if (list) list.push(i);
      else held.set(d, [i]);
    }
    const own = idfFactor(names.length + docs.length, corpus.documents);
    t.idf = t.of === undefined ? own : Math.min(own, (terms[t.of] as Term).idf);
  });

  const obs = observations(db, [...held.keys()]);
  const entities = new Set<number>(labels.keys());
  for (const o of obs.values()) entities.add(o.owner);

  // The phrase bonus: adjacent query terms within PHRASE_DISTANCE words in one of the entity's documents.
  const phrases = new Map<number, number>();
  const own = terms.filter((t) => t.index >= 0);
  for (let k = 0; k + 1 < own.length; k++) {
    const a = own[k] as Term;
    const b = own[k + 1] as Term;
    if (a.term.cjk || b.term.cjk) continue;
    const near = `NEAR(${quote(a.term.parts.join(" "))} ${quote(b.term.parts.join(" "))}, ${PHRASE_DISTANCE})`;
    const owners = new Set<number>();
    for (const d of doclist(db, "search_words", near, true)) owners.add(-d);
    for (const d of doclist(db, "search_words", near, false)) {
      const o = obs.get(d);
      if (o) owners.add(o.owner);
    }
    for (const id of owners) phrases.set(id, (phrases.get(id) ?? 0) + (PHRASE_BONUS * (a.idf + b.idf)) / 2);
  }

  const avg = averageLengths(db);
  const stats = new Map(entityStats(db, [...entities]).map((s) => [s.id, s]));
  const tf = new Map<number, Map<number, number>>();
  const add = (id: number, t: number, f: number) => {
    const term = terms[t] as Term;
    const into = term.of ?? t;
    const m = tf.get(id) ?? new Map<number, number>();
    m.set(into, (m.get(into) ?? 0) + (term.of === undefined ? f : f * term.weight));
    tf.set(id, m);
  };
  for (const [id, m] of labels) {
    const s = stats.get(id);
    if (s) for (const [t, w] of m) add(id, t, (LABEL_WEIGHT * w) / norm(s.label_len, avg.label));
  }
  for (const [d, list] of held) {
    const o = obs.get(d);
    if (!o) continue;
    const b = norm(o.len, avg.observation);
    for (const t of list) add(o.owner, t, 1 / b);
  }
  const model = opts.model ?? DEFAULT_MODEL;
  const out: Scored[] = [];
  for (const id of entities) {
    const s = stats.get(id);
    if (!s) continue;
    let lexical = phrases.get(id) ?? 0;
    for (const [t, f] of tf.get(id) ?? []) {
      const term = terms[t] as Term;
      lexical += term.weight * term.idf * saturate(f);
    }
    if (lexical <= 0) continue;
    const p = priority(
      {
        uses: s.uses,
        createdAt: s.created,
        lastAccessedAt: s.last_accessed,
        category: s.category,
        important: s.important === 1,
        clusterSize: s.cluster_size,
        baseRelevance: s.base_relevance,
      },
      opts.now,
      model,
    );
    out.push({ id, score: lexical * connectionFactor(s.degree) * recencyFactor(opts.now - s.updated) * Math.sqrt(priorityFactor(p)) });
  }
  out.sort((a, b) => b.score - a.score || a.id - b.id);
  return out;
}
