/**
 * search_nodes: the one function the tools call to search (`searchGraph`).
 *
 * ## Pipeline
 * 1. tokenize the query into terms (./tokenize.ts),
 * 2. find each term's candidate entities and hits in the FTS5 indexes (./match.ts),
 * 3. score them as a product of named factors (./score.ts),
 * 4. choose entry nodes, one concept per term (./entries.ts),
 * 5. connect the entry nodes with short paths over relations (./walk.ts),
 * 6. assemble the result: entry nodes first, then the paths' connectors, up
 *    to `maxTotalNodes`, with the relations among the kept nodes.
 *
 * ## Invariants
 * - Reads only what the query touches: capped candidates per term, a bounded
 *   graph walk, the kept nodes. Memory does not grow with the graph.
 * - The output keeps the official {entities, relations} shape; each entity
 *   also carries its `score` and `role`, and `paths` lists the connections.
 */
import type { Db } from "../storage/sql";
import { toRelation, withObservations } from "../graph/rows";
import type { Entity, Relation } from "../graph/types";
import { chooseEntries, type TermScores } from "./entries";
import { corpus, entityStats, matchTerm } from "./match";
import type { SearchParams } from "./options";
import { combine, idfFactor, type Factors, importanceFactor, priorityFactor, recencyFactor, tfFactor } from "./score";
import { DEFAULT_MODEL, priority, type ModelOptions } from "../priority/model";
import { tokenize } from "./tokenize";
import { connect, entityRows, relationsAmong } from "./walk";

export { searchParams, type SearchOptions, type SearchParams } from "./options";

export type SearchRole = "entry" | "connector";

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

/** Every candidate's score per term, and its total over the query. */
function scoreCandidates(db: Db, query: string, now: number, model: ModelOptions) {
  const terms = tokenize(query);
  const c = corpus(db);
  const matches = terms.map((t) => matchTerm(db, t, c));
  const ids = [...new Set(matches.flatMap((m) => [...m.hits.keys()]))];
  const entityFactors = new Map<number, Pick<Factors, "importance" | "recency" | "priority">>();
  for (const s of entityStats(db, ids)) {
    entityFactors.set(s.id, {
      importance: importanceFactor(s.observations, s.degree),
      recency: recencyFactor(now - s.updated),
      priority: priorityFactor(
        priority(
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
        ),
      ),
    });
  }
  const total = new Map<number, number>();
  const perTerm: TermScores[] = matches.map((m, index) => {
    const idf = idfFactor(m.df, c.documents);
    const scores = new Map<number, number>();
    for (const [id, hits] of m.hits) {
      const f = entityFactors.get(id);
      if (f === undefined) continue;
      const score = combine({ tf: tfFactor(hits), idf, ...f });
      scores.set(id, score);
      total.set(id, (total.get(id) ?? 0) + score);
    }
    return { index, idf, scores };
  });
  return { terms, perTerm, total };
}

/** `model` is the priority model whose damped value is the score's priority factor (./score.ts). */
export function searchGraph(db: Db, query: string, params: SearchParams, now: number, model: ModelOptions = DEFAULT_MODEL): SearchResult {
  const { terms, perTerm, total } = scoreCandidates(db, query, now, model);
  if (terms.length === 0) {
    return { entities: [], relations: [], paths: [], note: "The query has no searchable terms (stop words and punctuation are ignored)." };
  }
  const entries = chooseEntries(perTerm, params.minRelativeScore, params.topPerToken)
    .map((e) => e.id)
    .sort((a, b) => (total.get(b) ?? 0) - (total.get(a) ?? 0) || a - b)
    .slice(0, params.maxTotalNodes);

  const kept = new Set(entries);
  const paths: number[][] = [];
  for (const { nodes } of connect(db, entries, params.maxPathLength)) {
    const fresh = nodes.filter((n) => !kept.has(n));
    if (kept.size + fresh.length > params.maxTotalNodes) continue;
    for (const n of fresh) kept.add(n);
    paths.push(nodes);
  }

  const ids = [...kept];
  const rows = entityRows(db, ids);
  const names = new Map(rows.map((r) => [r.id, r.name]));
  const entryIds = new Set(entries);
  const entities = withObservations(db, rows).map((e, i) => {
    const id = (rows[i] as (typeof rows)[number]).id;
    return { ...e, score: round(total.get(id) ?? 0), role: entryIds.has(id) ? ("entry" as const) : ("connector" as const) };
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
