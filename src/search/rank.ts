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
 * own terms and the caller's weight (< 1) for expansion terms. idf_t is
 * the term's over the whole context, one for every kind (./terms.ts): the
 * documents holding it (names, observations, files and documents), all of
 * them, against N, the context's highest entity id plus its highest
 * observation id (./match.ts readCorpus) plus its files and documents.
 * Files and documents are ranked by the same terms and parameters
 * (`textQuery`, src/items/text-rank.ts). The phrase
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
 * ## Exact, whatever an entity's age
 * Every document holding a query term counts, however old: one statement
 * (`rankingSql`) walks each term's whole FTS5 doclist, joins each posting to
 * its entity, sums the fields and orders the entities by the whole score
 * (the factors too, as SQL: ./score.ts factorSql), inside SQLite. Only the
 * best `top` entities by score, and each query word's best by its own
 * share, come back to JavaScript. The priority part of the factor is
 * computed only where it can matter: the same lists by the text alone give
 * each list a floor, and an entity whose text × connection × recency × the
 * context's largest √priority (an index, migrations/0025_search_bounds.sql)
 * stays under every floor is provably in none; the test runs first with the
 * largest factor any entity can have (`reachBound`), so most matches never
 * read their statistics. So the answer is the top k of the score
 * above over every entity, ties by id. Its cost, and SQLite's temporary
 * storage while it aggregates, grow with how many documents hold the
 * query's words (docs/performance.md); no posting reaches the JS heap.
 */
import { sqlLimit, type Db } from "../storage/sql";
import { DEFAULT_MODEL, PRIORITY_BOUND_SQL, priorityBound, sqlReal, type ModelOptions } from "../priority/model";
import type { WeightedTerm } from "./expand";
import { reciprocalRankFusion, type RankedId } from "./fuse";
import type { TextQuery } from "../items";
import { averageLengths, docsHolding, entityStats, expression } from "./match";
import { connectionFactor, dampedSql, factorSql, NAME_WEIGHT, priorityFactor, reachSql, SUBSTRING_WEIGHT } from "./score";
import type { ParsedQuery } from "./query";
import { queryTerms, type RankTerm } from "./terms";
import { quote, type QueryTerm } from "./tokenize";

/** BM25 saturation and length normalisation: Anserini's defaults, chosen on `npm run bench:recall` (docs/search.md). */
export const BM25_K1 = 0.9;
/** Weight of the name-and-type document against one observation. */
export const LABEL_WEIGHT = NAME_WEIGHT;
export const BM25_B = 0.4;
/** Adjacent query terms found this close (in words) in one document earn the phrase bonus. */
export const PHRASE_DISTANCE = 3;
/** The phrase bonus, as a share of the pair's mean idf. */
export const PHRASE_BONUS = 1;
/** Entities returned by whole-query score when the caller does not say. */
const DEFAULT_TOP = 100;
/** Observations asked one rowid at a time for recall's passages; beyond this the terms' doclists are walked instead. */
const PASSAGE_LOOKUPS = 2000;

export interface RankOptions {
  now: number;
  model?: ModelOptions;
  /** Extra weighted terms (weight in (0, 1]). */
  expansion?: readonly WeightedTerm[];
  /** Another ranked list of entity ids (semantic search), best first, fused by RRF. */
  semantic?: readonly RankedId[];
  /** The best entities by whole-query score the caller reads (DEFAULT_TOP when absent). */
  top?: number;
  /**
   * Entry nodes each query word picks (search_nodes' topPerToken; none when absent): the word picking j-th (by idf,
   * as src/search/entries.ts orders them, from 0) reads its best (j + 1) × perTerm by its own share, since the
   * words before it may have taken up to perTerm each.
   */
  perTerm?: number;
  /** Whether each entity's passages (its observations holding query terms) are needed. */
  passages?: boolean;
}

interface RankedEntity {
  id: number;
  score: number;
  /** Each query word's share of the score (by position in `terms`). */
  perTerm: Map<number, number>;
  /** Observations holding query terms, best first (with `passages` only). */
  passages: number[];
}

export interface Ranking {
  terms: RankTerm[];
  /** Best first; only entities that match. */
  entities: RankedEntity[];
}

/** Each pair of adjacent query terms, with the phrase bonus an item holding them close together earns: PHRASE_BONUS × their mean idf. */
function adjacentPairs(terms: readonly RankTerm[]): { a: RankTerm; b: RankTerm; bonus: number }[] {
  const literal = terms.filter((t) => t.index >= 0);
  return literal.slice(1).map((b, k) => {
    const a = literal[k] as RankTerm;
    return { a, b, bonus: (PHRASE_BONUS * (a.idf + b.idf)) / 2 };
  });
}

/** The query as files and documents are ranked (src/items/text-rank.ts): the entities' terms, idf, phrase bonus, k1 and b. */
export function textQuery(terms: readonly RankTerm[]): TextQuery {
  const pairs = adjacentPairs(terms).map(({ a, b, bonus }) => ({ a: a.term, b: b.term, bonus }));
  return { terms, pairs, k1: BM25_K1, b: BM25_B, phraseDistance: PHRASE_DISTANCE };
}

/** NEAR over two terms' phrases; undefined for a CJK term (matched by bigrams, not words). */
function nearExpression(a: QueryTerm, b: QueryTerm): string | undefined {
  if (a.cjk || b.cjk) return undefined;
  return `NEAR(${quote(a.parts.join(" "))} ${quote(b.parts.join(" "))}, ${PHRASE_DISTANCE})`;
}

/** Ranks the context's entities for `query`: see the module comment. */
export function rankQuery(db: Db, query: ParsedQuery, opts: RankOptions): Ranking {
  const terms = queryTerms(db, query, opts.expansion ?? []);
  const top = Math.max(opts.top ?? DEFAULT_TOP, opts.semantic?.length ?? 0);
  const lexical = terms.length === 0 ? [] : bestEntities(db, terms, top, opts.perTerm ?? 0, opts.now, opts.model ?? DEFAULT_MODEL);
  if (opts.passages) addPassages(db, terms, lexical);
  // Fusion reads list positions as ranks, so it gets the exact best `top` only: a word's extra entry further down
  // would sit at a position far better than its rank.
  const entities = opts.semantic && opts.semantic.length > 0 ? fuseSemantic(db, lexical.slice(0, top), opts.semantic) : lexical;
  return { terms, entities };
}

/** The order in which src/search/entries.ts lets the query's words pick their entries: highest idf first, then query order. */
const pickOrder = <T extends { idf: number; index: number }>(words: readonly T[]): T[] => [...words].sort((a, b) => b.idf - a.idf || a.index - b.index);

/** SQLite (as built for Durable Objects) takes at most this many SELECTs in one compound. */
const COMPOUND_ARMS = 5;

/** `arms` (each selecting the same columns) as one UNION, nested so no compound has more than COMPOUND_ARMS. */
function union(arms: readonly string[]): string {
  if (arms.length <= COMPOUND_ARMS) return arms.join("\n      UNION ");
  const groups: string[] = [];
  for (let k = 0; k < arms.length; k += COMPOUND_ARMS) groups.push(`SELECT * FROM (${arms.slice(k, k + COMPOUND_ARMS).join(" UNION ")})`);
  return union(groups);
}

/** Where a term's matches count: the term itself, or the query word a synonym stands for. */
const into = (terms: readonly RankTerm[], t: number): number => terms[t]?.of ?? t;

/**
 * The statement that ranks every entity holding a query term (see the module comment), and its parameters.
 * Numbers are literals (sqlReal); every string from the query is a parameter.
 */
function rankingSql(
  terms: readonly RankTerm[],
  avg: { observation: number; label: number },
  priorityCeiling: number,
  factorCeiling: number,
  now: number,
  model: ModelOptions,
  top: number,
  perTerm: number,
) {
  // What varies from query to query is bound, not written into the text, so SQLite reuses the compiled
  // statement for every query of the same shape (terms, pairs, lists).
  const params: (string | number)[] = [];
  const param = (v: string) => {
    params.push(v);
    return `?${params.length}`;
  };
  const num = (v: number) => {
    params.push(v);
    return `CAST(?${params.length} AS REAL)`;
  };
  // One join per index over a JSON list of (term, expression) rows: a UNION arm per term would pass SQLite's compound-SELECT limit.
  const words = terms.map((t, i) => [i, t.broader ? 0 : 1, expression(t.term)]);
  const grams = terms.flatMap((t, i) => (t.substring ? [[i, quote(t.term.key)]] : []));
  // Each list is read out of its JSON once (a MATERIALIZED table): reading `value ->> k` in the join would parse
  // the JSON again for every posting, which cost more than walking the doclist (measured at 1,000,000 entities).
  const inputs: string[] = [`words(t, a, m) AS MATERIALIZED (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(${param(JSON.stringify(words))}))`];
  if (grams.length > 0) inputs.push(`grams(t, m) AS MATERIALIZED (SELECT value ->> 0, value ->> 1 FROM json_each(${param(JSON.stringify(grams))}))`);
  const label = `(1.0 - ${sqlReal(BM25_B)} + ${sqlReal(BM25_B)} * (length(en.name) + 1 + length(en.entity_type)) / ${num(avg.label)})`;
  const observation = `(1.0 - ${sqlReal(BM25_B)} + ${sqlReal(BM25_B)} * length(o.content) / ${num(avg.observation)})`;
  // Each posting with its entity, its term and its document's share of tf~ (names: the label's weight; a name holding
  // the term only as a substring: SUBSTRING_WEIGHT of it, and it never makes the entity relevant on its own). One arm
  // per index and side, so each FTS5 walk gets its rowid bound (names below 0, observations above).
  const tagged = [
    `SELECT -w.rowid, j.t, ${sqlReal(LABEL_WEIGHT)} / ${label}, j.a FROM words j, search_words w JOIN entities en ON en.id = -w.rowid WHERE search_words MATCH j.m AND w.rowid < 0`,
    ...(grams.length > 0
      ? [
          `SELECT -g.rowid, j.t, ${sqlReal(LABEL_WEIGHT * SUBSTRING_WEIGHT)} / ${label}, 0 FROM grams j, search_grams g JOIN entities en ON en.id = -g.rowid WHERE search_grams MATCH j.m AND g.rowid < 0`,
        ]
      : []),
    `SELECT o.entity_id, j.t, 1.0 / ${observation}, j.a FROM words j, search_words w JOIN observations o INDEXED BY search_observation_owner ON o.id = w.rowid WHERE search_words MATCH j.m AND w.rowid > 0`,
  ];
  const targets = [...new Set(terms.map((_, t) => into(terms, t)))];
  // Each target's tf~: its own matches, and its synonyms' × their weight.
  const tfSums = targets.map((i) => {
    const arms = terms.flatMap((term, t) => (into(terms, t) === i ? [`WHEN ${t} THEN f * ${term.of === undefined ? "1.0" : num(term.weight)}`] : []));
    return `sum(CASE t ${arms.join(" ")} END) AS tf${i}`;
  });
  const part = (i: number) => {
    const term = terms[i] as RankTerm;
    return `${num(term.weight * term.idf)} * tf${i} * ${sqlReal(BM25_K1 + 1)} / (${sqlReal(BM25_K1)} + tf${i}) AS p${i}`;
  };
  const literal = terms.map((t, i) => ({ t, i })).filter(({ t }) => t.index >= 0);
  const nears: [k: number, bonus: number, match: string][] = [];
  adjacentPairs(terms).forEach(({ a, b, bonus }, k) => {
    const near = nearExpression(a.term, b.term);
    if (near) nears.push([k, bonus, near]);
  });
  // A pair's postings join the others as term -1 - k with the bonus as their value; max() counts it once per entity.
  if (nears.length > 0) {
    inputs.push(`pairs(k, b, m) AS MATERIALIZED (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(${param(JSON.stringify(nears))}))`);
    tagged.push(
      `SELECT -w.rowid, -1 - j.k, j.b, 0 FROM pairs j, search_words w WHERE search_words MATCH j.m AND w.rowid < 0`,
      `SELECT o.entity_id, -1 - j.k, j.b, 0 FROM pairs j, search_words w JOIN observations o INDEXED BY search_observation_owner ON o.id = w.rowid WHERE search_words MATCH j.m AND w.rowid > 0`,
    );
  }
  const bonus = nears.length === 0 ? "0.0" : nears.map(([k]) => `coalesce(max(CASE t WHEN ${-1 - k} THEN f END), 0.0)`).join(" + ");
  // The lists the caller reads: the best `top` by score, and each word's best by its own share (j + 1) × perTerm deep.
  const picks = perTerm > 0 ? pickOrder(literal.map(({ t, i }) => ({ idf: t.idf, index: t.index, i }))).map(({ i }, j) => ({ i, n: (j + 1) * perTerm })) : [];
  // Each list is its own ORDER BY … LIMIT (a bounded sort).
  const lists = union([
    `SELECT * FROM (SELECT e FROM scored ORDER BY score DESC, e LIMIT ${sqlLimit(top)})`,
    ...picks.map(({ i, n }) => `SELECT * FROM (SELECT e FROM scored WHERE p${i} IS NOT NULL ORDER BY p${i} * factor DESC, e LIMIT ${sqlLimit(n)})`),
  ]);
  // The same lists by the text alone: their entities' exact values give each list a floor (`cut`) that its members reach.
  // Whole rows, so probing them needs no lookup into `matched` (an automatic index SQLite would build over every match).
  const probes = union([
    `SELECT * FROM (SELECT * FROM matched ORDER BY lex + bonus DESC, e LIMIT ${sqlLimit(top)})`,
    ...picks.map(({ i, n }) => `SELECT * FROM (SELECT * FROM matched WHERE p${i} IS NOT NULL ORDER BY p${i} DESC, e LIMIT ${sqlLimit(n)})`),
  ]);
  const floors = [
    `(SELECT (lex + bonus) * factor AS v FROM probe ORDER BY v DESC LIMIT 1 OFFSET ${sqlLimit(Math.max(0, top - 1))}) AS c`,
    ...picks.map(({ i, n }) => `(SELECT p${i} * factor AS v FROM probe WHERE p${i} IS NOT NULL ORDER BY v DESC LIMIT 1 OFFSET ${sqlLimit(n - 1)}) AS c${i}`),
  ];
  // An entity whose text × its connection × recency × the context's largest √priority stays under every list's floor is
  // in no list: its priority (the costly part of the factor) is never computed.
  const ceiling = num(priorityCeiling);
  const within = (r: string, bound: string) => [
    `cut.c IS NULL OR (${r}.lex + ${r}.bonus) * ${bound} >= cut.c`,
    ...picks.map(({ i }) => `(${r}.p${i} IS NOT NULL AND (cut.c${i} IS NULL OR ${r}.p${i} * ${bound} >= cut.c${i}))`),
  ];
  const reaches = within("r", `(r.reach * ${ceiling})`);
  // The same test with the context's largest factor (its largest connection × recency 1 × the ceiling) comes first, on
  // the match alone: most matches fail it, and for them no statistics row is read.
  const anyReach = within("m", num(factorCeiling));
  const factor = factorSql("s", "en", num(now), model);
  const lex = targets.map((i) => `coalesce(x.p${i}, 0.0)`).join(" + ");
  const sql = `WITH
    ${inputs.join(",\n    ")},
    tagged(e, t, f, a) AS (${tagged.join("\n      UNION ALL ")}),
    summed AS (SELECT e, max(a) AS a, ${tfSums.join(", ")}, ${bonus} AS bonus FROM tagged GROUP BY e),
    lexical AS (SELECT e, a, bonus, ${targets.map(part).join(", ")} FROM summed),
    matched AS MATERIALIZED (SELECT x.*, ${lex} AS lex FROM lexical x WHERE x.a = 1 AND ${lex} + x.bonus > 0),
    probe AS MATERIALIZED (SELECT m.*, ${factor} AS factor FROM (${probes}) m JOIN search_entity_stats s ON s.entity_id = m.e JOIN entities en ON en.id = m.e),
    cut AS MATERIALIZED (SELECT ${floors.join(", ")}),
    near AS (SELECT m.* FROM matched m CROSS JOIN cut WHERE ${anyReach.join(" OR ")}),
    scored AS MATERIALIZED (SELECT *, (lex + bonus) * factor AS score FROM (
      SELECT r.*, r.reach * ${dampedSql("en", num(now), model)} AS factor
        FROM (SELECT m.*, ${reachSql("s", num(now))} AS reach FROM near m JOIN search_entity_stats s ON s.entity_id = m.e) r
        CROSS JOIN cut CROSS JOIN entities en WHERE (${reaches.join(" OR ")}) AND en.id = r.e)),
    kept(e) AS (${lists})
  SELECT e, score, ${targets.map((i) => `p${i} * factor AS s${i}`).join(", ")} FROM scored WHERE e IN (SELECT e FROM kept)`;
  return { sql, params, columns: ["e", "score", ...targets.map((i) => `s${i}`)], targets };
}

/**
 * An upper bound of every entity's √priority (./score.ts) now: that of the largest time-free priority bound in the
 * context, one indexed lookup (migrations/0025_search_bounds.sql). A hair above it, so SQLite's last bit cannot pass it.
 */
function priorityPartBound(db: Db, model: ModelOptions): number {
  const row = db.one<{ p: number | null }>(`SELECT max(${PRIORITY_BOUND_SQL}) AS p FROM entities`);
  const bound = priorityBound(row?.p ?? 0, model);
  // A bound past the largest double (uses near 1e308) is above the clamp, not below it: priorityFactor reads a
  // non-finite priority as the smallest.
  return Math.sqrt(priorityFactor(Number.isFinite(bound) ? bound : Number.MAX_VALUE)) * (1 + 1e-9);
}

/** The degree above which search_hubs (migrations/0010_search_hubs.sql) indexes an entity's statistics; a test holds the two together. */
export const HUBS_INDEXED_ABOVE = 64;

/**
 * An upper bound of every entity's connection × recency (./score.ts) now, from the degrees the score reads: recency
 * is at most 1; degree counts relation ends (a relation from an entity to itself twice), so none exceeds twice the
 * relations, whose ids are distinct and positive; and none exceeds the largest degree in the hubs' index, which holds
 * every degree above its threshold. A hair above, so SQLite's last bit cannot pass it.
 */
export function reachBound(db: Db): number {
  const relations = db.one<{ n: number | null }>("SELECT max(id) AS n FROM relations")?.n ?? 0;
  // The hubs' index holds every degree above it, so their largest (or the threshold, when there is none) bounds every degree.
  const hubs = db.one<{ d: number | null }>(`SELECT max(degree) AS d FROM search_entity_stats WHERE degree > ${HUBS_INDEXED_ABOVE}`)?.d ?? HUBS_INDEXED_ABOVE;
  return connectionFactor(Math.min(2 * Math.max(0, relations), hubs)) * (1 + 1e-9);
}

/** The best `top` entities by score and the best `perTerm` by each query word's share, best first by score (ties by id). */
function bestEntities(db: Db, terms: readonly RankTerm[], top: number, perTerm: number, now: number, model: ModelOptions): RankedEntity[] {
  const priorityCeiling = priorityPartBound(db, model);
  const { sql, params, columns, targets } = rankingSql(terms, averageLengths(db), priorityCeiling, reachBound(db) * priorityCeiling, now, model, top, perTerm);
  const rows = db.tuples<(number | null)[]>(columns, sql, params);
  const out: RankedEntity[] = rows.map((row) => {
    const shares = new Map<number, number>();
    targets.forEach((t, k) => {
      const v = row[2 + k];
      if (typeof v === "number") shares.set(t, v);
    });
    return { id: row[0] as number, score: row[1] as number, perTerm: shares, passages: [] };
  });
  out.sort((a, b) => b.score - a.score || a.id - b.id);
  return out;
}

/**
 * Each entity's observations holding query terms, best first by the summed weight × idf of the terms each holds:
 * asked one rowid at a time while that is cheaper than walking the terms' doclists.
 */
function addPassages(db: Db, terms: readonly RankTerm[], entities: RankedEntity[]): void {
  if (entities.length === 0) return;
  const ids = JSON.stringify(entities.map((e) => e.id));
  // Few observations: ask each whether it holds the term. Many (a hub): walk the term's doclist for these owners instead,
  // so neither the time nor one JSON value grows with the entities' observations.
  const docs = db.tuples<[doc: number, eid: number]>(
    ["doc", "eid"],
    `SELECT id AS doc, entity_id AS eid FROM observations WHERE entity_id IN (SELECT value FROM json_each(?1)) LIMIT ${PASSAGE_LOOKUPS + 1}`,
    [ids],
  );
  const few = docs.length <= PASSAGE_LOOKUPS;
  const owner = new Map(docs);
  const score = new Map<number, number>();
  terms.forEach((t) => {
    const match = expression(t.term);
    const held: [doc: number, eid: number][] = few
      ? [...docsHolding(db, match, [...owner.keys()])].map((d) => [d, owner.get(d) as number])
      : docsOwnedBy(db, match, ids);
    for (const [doc, eid] of held) {
      owner.set(doc, eid);
      score.set(doc, (score.get(doc) ?? 0) + t.weight * t.idf);
    }
  });
  const byEntity = new Map<number, [number, number][]>();
  for (const [doc, s] of score) {
    const eid = owner.get(doc) as number;
    const list = byEntity.get(eid) ?? [];
    list.push([doc, s]);
    byEntity.set(eid, list);
  }
  for (const e of entities) e.passages = (byEntity.get(e.id) ?? []).sort((x, y) => y[1] - x[1] || y[0] - x[0]).map(([doc]) => doc);
}

/** The observations of the entities in `ids` (a JSON list) holding `match`, with their entity, by walking its doclist. */
function docsOwnedBy(db: Db, match: string, ids: string): [doc: number, eid: number][] {
  return db.tuples<[doc: number, eid: number]>(
    ["doc", "eid"],
    `SELECT w.rowid AS doc, o.entity_id AS eid FROM search_words w JOIN observations o INDEXED BY search_observation_owner ON o.id = w.rowid
     WHERE search_words MATCH ?1 AND w.rowid > 0 AND o.entity_id IN (SELECT value FROM json_each(?2))`,
    [match, ids],
  );
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
