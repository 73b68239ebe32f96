/**
 * Whole-query ranking: how well each entity matches the whole
 * query, as one number, for search_nodes' entry nodes and for recall.
 *
 * ## Score
 * BM25F (Robertson, Zaragoza and Taylor, 2004) over an entity's fields: its
 * name-and-type document (weight NAME_WEIGHT) and each of its observations
 * (weight 1), each normalised by its own length against the average
 * (LABEL_WEIGHT = NAME_WEIGHT):
 *
 *   tf~_t(e)  = LABEL_WEIGHT × label_t / B(label) + Σ_{o ∋ t} 1 / B(o)
 *   B(d)      = 1 − BM25_B + BM25_B × |d| / avg|d|          (characters)
 *   lexical   = Σ_t w_t × idf_t × tf~ × (k1 + 1) / (k1 + tf~) + phrase bonus
 *   score(e)  = lexical × connection × recency × √priority     (./score.ts)
 *
 * label_t is 1 when the name or type holds the term as a word, SUBSTRING_WEIGHT
 * when only as a substring (the trigram index). w_t is 1 for the query's
 * own terms and the caller's weight (< 1) for expansion terms. The phrase
 * bonus adds PHRASE_BONUS × the pair's mean idf once per pair of adjacent
 * query terms found within PHRASE_DISTANCE words of each other in one of the
 * entity's documents. The priority factor enters under a square root (so
 * within [0.84, 1.41]): at full strength, the boost of entities that earlier
 * searches returned would outweigh the text (docs/search.md). Stop words and question words never become terms
 * (./tokenize.ts); stems and compounds match as in every search (./match.ts).
 *
 * With a semantic list (`semantic`), the lexical order and that list are
 * fused by reciprocal rank fusion with k = 60 (./fuse.ts) and the fused
 * value is the score.
 *
 * ## Cost at scale
 * Candidates come from capped newest-first windows per term (./match.ts):
 * a term rarer than the window is read whole, a common one (low idf) only
 * in part. The best RANK_MAX_CANDIDATES candidates by what the windows saw
 * are scored; the documents of the best VERIFY_CANDIDATES are asked, one
 * rowid lookup each, whether they hold the common terms their windows
 * missed (at most VERIFY_LOOKUPS lookups, highest idf first), and the
 * documents holding both terms of an adjacent pair whether they are near
 * (at most PHRASE_LOOKUPS, COMPOUND_PHRASE_LOOKUPS of them for a pair with
 * a compound, whose phrase inside NEAR costs far more). The budgets bound a
 * search's time. A compound's words written apart are looked for
 * among the newest documents only (./match.ts PHRASE_SPAN): a phrase is
 * found by walking its words' doclists. Nothing reads a posting list to its
 * end or scans a table.
 */
import type { Db } from "../storage/sql";
import { DEFAULT_MODEL, priority, type ModelOptions } from "../priority/model";
import type { WeightedTerm } from "./expand";
import { reciprocalRankFusion, type RankedId } from "./fuse";
import { averageLengths, readCorpus, docsHolding, entityStats, estimateDf, expression, observationLengths, substringNames, termWindow } from "./match";
import { connectionFactor, idfFactor, NAME_WEIGHT, priorityFactor, recencyFactor, SUBSTRING_WEIGHT } from "./score";
import type { ParsedQuery } from "./query";
import { quote, tokenize, type QueryTerm } from "./tokenize";

/** Entities read per term by a hit in their name or type. */
const RANK_NAME_CANDIDATES = 20;
/** Newest observations read per term. */
const RANK_OBSERVATION_CANDIDATES = 100;
/** Entities scored in full (the best by what the windows saw). */
const RANK_MAX_CANDIDATES = 100;
/** Candidates whose documents are asked about the common terms their windows missed, and the rowid lookups allowed for that. */
const VERIFY_CANDIDATES = 60;
const VERIFY_LOOKUPS = 600;
/** What one lookup of a compound (its phrase, or its joined form) counts against VERIFY_LOOKUPS: FTS5 checks a phrase at several times the cost of one word. */
const COMPOUND_LOOKUP_COST = 8;
/** Rowid lookups allowed for the phrase bonus. */
const PHRASE_LOOKUPS = 300;
/**
 * Of those, the lookups for a pair with a compound ("dependency owner-quota"): a phrase inside NEAR costs
 * FTS5 far more per document than two words, so these few bound that pair's share of a search
 * (docs/search.md gives the costs).
 */
export const COMPOUND_PHRASE_LOOKUPS = 4;
/** Trigram-index entities read per term whose name or type holds it only as a substring. */
const SUBSTRING_CANDIDATES = 20;
/** BM25 saturation and length normalisation: Anserini's defaults, chosen on `npm run bench:recall` (docs/search.md). */
export const BM25_K1 = 0.9;
/** Weight of the name-and-type document against one observation. */
export const LABEL_WEIGHT = NAME_WEIGHT;
export const BM25_B = 0.4;
/** Adjacent query terms found this close (in words) in one document earn the phrase bonus. */
export const PHRASE_DISTANCE = 3;
/** The phrase bonus, as a share of the pair's mean idf. */
export const PHRASE_BONUS = 1;

export interface RankOptions {
  now: number;
  model?: ModelOptions;
  /** Extra weighted terms (weight in (0, 1]). */
  expansion?: readonly WeightedTerm[];
  /** Another ranked list of entity ids (semantic search), best first, fused by RRF. */
  semantic?: readonly RankedId[];
}

interface RankTerm {
  term: QueryTerm;
  /** 1 for the query's own terms, less for an expansion. */
  weight: number;
  idf: number;
  /** Position among the query's own terms; -1 for an expansion term. */
  index: number;
  /** For an expansion term, the position in `terms` of the query word it stands for: its matches count as that word's, × weight. */
  of?: number;
  /** A broader word of a query word: it never makes an entity relevant on its own. */
  broader?: true;
}

interface RankedEntity {
  id: number;
  score: number;
  /** Each term's share of the score (by position in `terms`). */
  perTerm: Map<number, number>;
  /** Observations holding query terms, best first. */
  passages: number[];
}

export interface Ranking {
  terms: RankTerm[];
  /** Best first; only entities that match. */
  entities: RankedEntity[];
}

interface Candidate {
  /** term → its weight in the name-and-type document (1, or SUBSTRING_WEIGHT). */
  label: Map<number, number>;
  /** observation id → the terms it holds. */
  docs: Map<number, Set<number>>;
}

/** The query's terms, then the expansion's that are new, each with its weight. */
function rankTerms(query: ParsedQuery, expansion: readonly WeightedTerm[]): (Omit<RankTerm, "idf"> & { of?: number })[] {
  const out: (Omit<RankTerm, "idf"> & { of?: number })[] = query.terms.map((term, index) => ({ term, weight: 1, index }));
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

const candidateOf = (all: Map<number, Candidate>, id: number): Candidate => {
  let candidate = all.get(id);
  if (!candidate) {
    candidate = { label: new Map(), docs: new Map() };
    all.set(id, candidate);
  }
  return candidate;
};

const holds = (candidate: Candidate, doc: number, t: number) => {
  const set = candidate.docs.get(doc);
  if (set) set.add(t);
  else candidate.docs.set(doc, new Set([t]));
};

/** NEAR over two terms' phrases; undefined for a CJK term (matched by bigrams, not words). */
function nearExpression(a: QueryTerm, b: QueryTerm): string | undefined {
  if (a.cjk || b.cjk) return undefined;
  return `NEAR(${quote(a.parts.join(" "))} ${quote(b.parts.join(" "))}, ${PHRASE_DISTANCE})`;
}

const saturate = (tf: number) => (tf * (BM25_K1 + 1)) / (BM25_K1 + tf);
const norm = (len: number, avg: number) => 1 - BM25_B + (BM25_B * len) / avg;

/** Ranks the context's entities for `query`: see the module comment. Each phase is one function below, in order. */
export function rankQuery(db: Db, query: ParsedQuery, opts: RankOptions): Ranking {
  const state = findCandidates(db, query, opts.expansion ?? []);
  const list = shortlist(state);
  verifyMissedTerms(state, list);
  const phrases = phraseBonuses(state, list);
  const ranked = scoreShortlist(state, list, phrases, opts.now, opts.model ?? DEFAULT_MODEL);
  const entities = opts.semantic && opts.semantic.length > 0 ? fuseSemantic(db, ranked, opts.semantic) : ranked;
  return { terms: state.terms, entities };
}

/** What the phases share: the terms with their idf, and every entity the term windows saw. */
interface RankState {
  db: Db;
  terms: RankTerm[];
  /** Entity id → what the windows (and later the verification) saw of it. */
  candidates: Map<number, Candidate>;
  /** Positions of the terms whose window was full: older documents may hold them too. */
  truncated: number[];
}

/** The candidates scored in full, best first by what the windows saw, and the owner of each of their documents. */
interface Shortlist {
  kept: { id: number; cand: Candidate }[];
  /** Document → its entity: names as -id, observations as their id. */
  owners: Map<number, number>;
}

/** Phase 1: each term's capped windows (./match.ts) give the candidates and the term's estimated idf. */
function findCandidates(db: Db, query: ParsedQuery, expansion: readonly WeightedTerm[]): RankState {
  const corpus = readCorpus(db);
  const candidates = new Map<number, Candidate>();
  const truncated: number[] = [];
  const idfs: number[] = [];
  const terms: RankTerm[] = rankTerms(query, expansion).map((t, i) => {
    const w = termWindow(db, t.term, corpus, RANK_NAME_CANDIDATES, RANK_OBSERVATION_CANDIDATES);
    for (const id of w.names) candidateOf(candidates, id).label.set(i, 1);
    for (const [doc, eid] of w.observations) holds(candidateOf(candidates, eid), doc, i);
    if (w.names.length >= RANK_NAME_CANDIDATES || w.observations.length >= RANK_OBSERVATION_CANDIDATES) truncated.push(i);
    // A name or type holding the term only inside a longer word ("zoom" in "zoomIntegration").
    if (w.names.length === 0 && [...t.term.key].length >= 3) {
      for (const id of substringNames(db, quote(t.term.key), SUBSTRING_CANDIDATES)) {
        const cand = candidateOf(candidates, id);
        if (!cand.label.has(i)) cand.label.set(i, SUBSTRING_WEIGHT);
      }
    }
    const df =
      estimateDf(w.names.length, RANK_NAME_CANDIDATES, w.names.at(-1) ?? 0, corpus.maxEntityId) +
      estimateDf(w.observations.length, RANK_OBSERVATION_CANDIDATES, w.observations.at(-1)?.[0] ?? 0, corpus.maxObservationId);
    // A synonym is worth at most the word it stands for (the literal terms come first, so theirs is known).
    const own = idfFactor(df, corpus.documents);
    const idf = t.of === undefined ? own : Math.min(own, idfs[t.of] ?? own);
    idfs.push(idf);
    return { term: t.term, weight: t.weight, index: t.index, idf, of: t.of, broader: t.broader };
  });
  return { db, terms, candidates, truncated };
}

/** Phase 2: the best RANK_MAX_CANDIDATES candidates by what the windows saw, to score in full. */
function shortlist({ terms, candidates }: RankState): Shortlist {
  const rough = (cand: Candidate) => {
    let s = 0;
    for (const [t, w] of cand.label) s += LABEL_WEIGHT * w * (terms[t] as RankTerm).weight * (terms[t] as RankTerm).idf;
    const seen = new Map<number, number>();
    for (const set of cand.docs.values()) for (const t of set) seen.set(t, (seen.get(t) ?? 0) + 1);
    for (const [t, n] of seen) s += Math.min(n, 2) * (terms[t] as RankTerm).weight * (terms[t] as RankTerm).idf;
    return s;
  };
  const kept = [...candidates].map(([id, cand]) => ({ id, cand, rough: rough(cand) }));
  kept.sort((a, b) => b.rough - a.rough || b.id - a.id);
  kept.length = Math.min(kept.length, RANK_MAX_CANDIDATES);
  // Every document of the kept candidates that the windows saw.
  const owners = new Map<number, number>();
  for (const { id, cand } of kept) {
    owners.set(-id, id);
    for (const doc of cand.docs.keys()) owners.set(doc, id);
  }
  return { kept, owners };
}

/**
 * Phase 3: a common term's window missed older documents, so the best candidates' documents are asked
 * directly, the most telling (highest idf) terms first, within a budget of rowid lookups.
 */
function verifyMissedTerms({ db, terms, candidates, truncated }: RankState, { kept, owners }: Shortlist): void {
  const verified = kept.slice(0, VERIFY_CANDIDATES);
  let lookups = VERIFY_LOOKUPS;
  for (const t of [...truncated].sort((x, y) => (terms[y] as RankTerm).idf - (terms[x] as RankTerm).idf)) {
    const ask: number[] = [];
    for (const { id, cand } of verified) {
      if (!cand.label.has(t)) ask.push(-id);
      for (const [doc, set] of cand.docs) if (!set.has(t)) ask.push(doc);
    }
    const term = (terms[t] as RankTerm).term;
    const cost = term.parts.length > 1 ? COMPOUND_LOOKUP_COST : 1;
    const asked = ask.slice(0, Math.floor(lookups / cost));
    lookups -= asked.length * cost;
    for (const doc of docsHolding(db, expression(term), asked)) {
      const cand = candidates.get(owners.get(doc) as number) as Candidate;
      if (doc < 0) cand.label.set(t, 1);
      else holds(cand, doc, t);
    }
    if (lookups <= 0) break;
  }
}

/** Phase 4: adjacent query terms close together in one document, asked only of documents known to hold both; entity id → its bonus. */
function phraseBonuses({ db, terms }: RankState, { kept, owners }: Shortlist): Map<number, number> {
  const phrases = new Map<number, number>();
  const literal = terms.map((t, i) => ({ t, i })).filter(({ t }) => t.index >= 0);
  let lookups = PHRASE_LOOKUPS;
  let compoundLookups = COMPOUND_PHRASE_LOOKUPS;
  for (let k = 0; k + 1 < literal.length && lookups > 0; k++) {
    const { t: a, i: ai } = literal[k] as { t: RankTerm; i: number };
    const { t: b, i: bi } = literal[k + 1] as { t: RankTerm; i: number };
    const near = nearExpression(a.term, b.term);
    if (!near) continue;
    const both: number[] = [];
    for (const { id, cand } of kept) {
      if (cand.label.get(ai) === 1 && cand.label.get(bi) === 1) both.push(-id);
      for (const [doc, set] of cand.docs) if (set.has(ai) && set.has(bi)) both.push(doc);
    }
    const compound = a.term.parts.length > 1 || b.term.parts.length > 1;
    const asked = both.slice(0, compound ? Math.min(lookups, compoundLookups) : lookups);
    lookups -= asked.length;
    if (compound) compoundLookups -= asked.length;
    const bonus = (PHRASE_BONUS * (a.idf + b.idf)) / 2;
    const found = new Set([...docsHolding(db, near, asked)].map((doc) => owners.get(doc) as number));
    for (const id of found) phrases.set(id, (phrases.get(id) ?? 0) + bonus);
  }
  return phrases;
}

/** Phase 5: each kept candidate's BM25F score (with its phrase bonus) times its connection, recency and damped priority; best first. */
function scoreShortlist({ db, terms }: RankState, { kept, owners }: Shortlist, phrases: Map<number, number>, now: number, model: ModelOptions): RankedEntity[] {
  const lengths = observationLengths(
    db,
    [...owners.keys()].filter((d) => d > 0),
  );
  const avg = averageLengths(db);
  const stats = new Map(
    entityStats(
      db,
      kept.map((k) => k.id),
    ).map((s) => [s.id, s]),
  );
  const ranked: RankedEntity[] = [];
  for (const { id, cand } of kept) {
    const s = stats.get(id);
    if (!s) continue;
    const { lexical, perTerm, passages } = lexicalScore(terms, cand, lengths, avg, phrases.get(id) ?? 0, s.label_len);
    if (lexical <= 0 || !isRelevant(terms, cand)) continue;
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
      now,
      model,
    );
    const factor = connectionFactor(s.degree) * recencyFactor(now - s.updated) * Math.sqrt(priorityFactor(p));
    for (const [t, part] of perTerm) perTerm.set(t, part * factor);
    ranked.push({ id, score: lexical * factor, perTerm, passages });
  }
  ranked.sort((a, b) => b.score - a.score || a.id - b.id);
  return ranked;
}

/**
 * Whether a query word or a synonym of it matches the candidate as a word, in its name, type or an observation:
 * a match only through a broader word or a substring of its name is not enough (docs/search.md, "Nothing is better than filler").
 */
function isRelevant(terms: readonly RankTerm[], cand: Candidate): boolean {
  const anchors = (t: number) => !(terms[t] as RankTerm).broader;
  for (const [t, w] of cand.label) if (w === 1 && anchors(t)) return true;
  for (const set of cand.docs.values()) for (const t of set) if (anchors(t)) return true;
  return false;
}

/** One candidate's BM25F sum over its fields plus `phrase`, each term's share of it, and its observations best first. */
function lexicalScore(
  terms: readonly RankTerm[],
  cand: Candidate,
  lengths: Map<number, number>,
  avg: { observation: number; label: number },
  phrase: number,
  labelLength: number,
): { lexical: number; perTerm: Map<number, number>; passages: number[] } {
  // A synonym standing for a query word adds to that word's frequency (× its weight), saturated once with it,
  // as Lucene's SynonymQuery does: a paraphrase never counts for more than the word itself would.
  const tf = new Map<number, number>();
  const add = (t: number, f: number) => {
    const term = terms[t] as RankTerm;
    const into = term.of ?? t;
    tf.set(into, (tf.get(into) ?? 0) + (term.of === undefined ? f : f * term.weight));
  };
  for (const [t, w] of cand.label) add(t, (LABEL_WEIGHT * w) / norm(labelLength, avg.label));
  const docScore = new Map<number, number>();
  for (const [doc, set] of cand.docs) {
    const b = norm(lengths.get(doc) ?? avg.observation, avg.observation);
    let ds = 0;
    for (const t of set) {
      add(t, 1 / b);
      ds += (terms[t] as RankTerm).weight * (terms[t] as RankTerm).idf;
    }
    docScore.set(doc, ds);
  }
  const perTerm = new Map<number, number>();
  let lexical = phrase;
  for (const [t, f] of tf) {
    const term = terms[t] as RankTerm;
    const part = term.weight * term.idf * saturate(f);
    perTerm.set(t, part);
    lexical += part;
  }
  const passages = [...docScore].sort((x, y) => y[1] - x[1] || y[0] - x[0]).map(([doc]) => doc);
  return { lexical, perTerm, passages };
}

/** The lexical ranking fused with a semantic list by RRF; entities only the semantic list found join with no term scores. */
function fuseSemantic(db: Db, lexical: RankedEntity[], semantic: readonly RankedId[]): RankedEntity[] {
  const byId = new Map(lexical.map((e) => [e.id, e]));
  const fresh = semantic.map((s) => s.id).filter((id) => !byId.has(id));
  // Only entities that still exist: a stale vector must not bring back a deleted entity.
  for (const s of entityStats(db, [...new Set(fresh)])) byId.set(s.id, { id: s.id, score: 0, perTerm: new Map(), passages: [] });
  const known = semantic.filter((s) => byId.has(s.id));
  return reciprocalRankFusion([lexical, known]).map(({ id, score }) => ({ ...(byId.get(id) as RankedEntity), score }));
}
