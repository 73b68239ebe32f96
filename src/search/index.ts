/**
 * search_nodes' answer for a parsed query (`searchGraph`); ./entry.ts runs
 * it for the tool, with the alias and as-of branches around it.
 *
 * ## Pipeline
 * 1. rank the entities by how well they match the whole query (./rank.ts:
 *    BM25F over names, types and observations, a phrase bonus, then recency
 *    and priority),
 * 2. choose entry nodes: every entity scoring at least `minRelativeScore` of
 *    the best, plus each query term's own best `topPerToken` (./entries.ts),
 *    so a keyword query still brings one entity per concept; all ordered by
 *    the whole-query score,
 * 3. connect the per-term entry nodes with short paths over relations (./walk.ts),
 * 4. assemble the result: entry nodes first, then the paths' connectors, up
 *    to `maxTotalNodes`, with the relations among the kept nodes.
 *
 * ## Invariants
 * - Reads only what the query touches: capped candidates per term, a bounded
 *   graph walk, the kept nodes. Memory does not grow with the graph.
 * - The output keeps the official {entities, relations} shape; each entity
 *   also carries its `score` and `role`, and `paths` lists the connections.
 */
import { NO_MATCH_NOTE, NO_TERMS_NOTE } from "../items";
import type { Db } from "../storage/sql";
import { toRelation, withObservations } from "../graph/rows";
import type { Entity, Relation } from "../graph/types";
import { chooseEntries, type TermScores } from "./entries";
import type { SearchParams } from "./options";
import { DEFAULT_MODEL, type ModelOptions } from "../priority/model";
import type { ParsedQuery } from "./query";
import { rankQuery, type RankOptions } from "./rank";
import { connect, entityRows, relationsAmong } from "./walk";

export { searchParams, type SearchOptions, type SearchParams } from "./options";

type SearchRole = "entry" | "connector";

export interface ScoredEntity extends Entity {
  score: number;
  role: SearchRole;
}

export interface SearchResult {
  entities: ScoredEntity[];
  relations: Relation[];
  /** Each connection found, as entity names from one entry node to another. */
  paths: string[][];
  note?: string;
}

/** Relations returned at most, so a dense cluster cannot flood a context window. */
export const SEARCH_MAX_RELATIONS = 1000;

const round = (x: number) => Number(x.toPrecision(4));

/** `model` is the priority model whose damped value multiplies the score (./score.ts); `rank` passes expansion terms and a semantic list to ./rank.ts. */
export function searchGraph(
  db: Db,
  query: ParsedQuery,
  params: SearchParams,
  now: number,
  model: ModelOptions = DEFAULT_MODEL,
  rank: Pick<RankOptions, "expansion" | "semantic"> = {},
): SearchResult {
  // Entries are at most maxTotalNodes by score, plus each word's best topPerToken, skipping those earlier words took.
  const ranking = rankQuery(db, query, { ...rank, now, model, top: params.maxTotalNodes, perTerm: params.topPerToken });
  const literal = ranking.terms.filter((t) => t.index >= 0);
  if (literal.length === 0) {
    return { entities: [], relations: [], paths: [], note: NO_TERMS_NOTE };
  }
  if (ranking.entities.length === 0) return { entities: [], relations: [], paths: [], note: NO_MATCH_NOTE };
  const total = new Map(ranking.entities.map((e) => [e.id, e.score]));
  const best = ranking.entities[0]?.score ?? 0;
  const perTerm: TermScores[] = literal.map((t) => ({
    index: t.index,
    idf: t.idf,
    scores: new Map(ranking.entities.flatMap((e) => (e.perTerm.has(t.index) ? [[e.id, e.perTerm.get(t.index) as number] as const] : []))),
  }));
  const concepts = chooseEntries(perTerm, params.minRelativeScore, params.topPerToken).map((e) => e.id);
  const wholeQuery = ranking.entities.filter((e) => e.score >= params.minRelativeScore * best).map((e) => e.id);
  const byScore = (a: number, b: number) => (total.get(b) ?? 0) - (total.get(a) ?? 0) || a - b;
  const ranked = [...new Set([...wholeQuery, ...concepts])].sort(byScore);
  // The per-term entries and the paths joining them take room before weaker whole-query matches.
  const conceptIds = [...new Set(concepts)].sort(byScore).slice(0, params.maxTotalNodes);
  const reserved = new Set(conceptIds);
  const rankedSet = new Set(ranked);
  const connectors: number[] = [];
  const paths: number[][] = [];
  for (const { nodes } of connect(db, conceptIds, params.maxPathLength)) {
    const fresh = nodes.filter((n) => !reserved.has(n));
    if (reserved.size + fresh.length > params.maxTotalNodes) continue;
    for (const n of fresh) {
      reserved.add(n);
      if (rankedSet.has(n)) conceptIds.push(n);
      else connectors.push(n);
    }
    paths.push(nodes);
  }
  const mustKeep = new Set(conceptIds);
  let others = params.maxTotalNodes - reserved.size;
  const entries = ranked.filter((id) => mustKeep.has(id) || others-- > 0);
  const entrySet = new Set(entries);
  const kept = [...entries, ...connectors];

  const ids = kept;
  const rows = entityRows(db, ids);
  const names = new Map(rows.map((r) => [r.id, r.name]));
  const entities = withObservations(db, rows).map((e, i) => {
    const id = (rows[i] as (typeof rows)[number]).id;
    return { ...e, score: round(total.get(id) ?? 0), role: entrySet.has(id) ? ("entry" as const) : ("connector" as const) };
  });
  const relations = relationsAmong(db, ids, SEARCH_MAX_RELATIONS);
  const result: SearchResult = {
    entities,
    relations: relations.slice(0, SEARCH_MAX_RELATIONS).map(toRelation),
    paths: paths.map((p) => p.map((id) => names.get(id) ?? "")),
  };
  if (relations.length > SEARCH_MAX_RELATIONS) result.note = `Only the first ${SEARCH_MAX_RELATIONS} relations among these entities are shown.`;
  return result;
}
