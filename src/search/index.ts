/**
 * search_nodes. The one function the graph tools call to search, so the
 * search engine can change without touching them.
 *
 * This version is a case-insensitive substring match over entity names,
 * types and observations, with the official server's output shape and
 * relations having either end among the matches.
 */
import type { Db } from "../context/sql";
import { relationsTouching, withObservations, type EntityRow } from "../graph/rows";
import type { KnowledgeGraph } from "../graph/types";

export interface SearchOptions {
  limit?: number;
}

export const SEARCH_DEFAULT_LIMIT = 50;
const MAX_RELATIONS = 1000;

const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function searchGraph(db: Db, query: string, opts: SearchOptions = {}): KnowledgeGraph {
  const q = query.trim();
  if (q === "") return { entities: [], relations: [] };
  const pattern = likePattern(q);
  const limit = opts.limit ?? SEARCH_DEFAULT_LIMIT;
  const rows = db.all<EntityRow>(
    `SELECT e.id, e.name, e.entity_type FROM entities e
     WHERE lower(e.name) LIKE ?1 ESCAPE '\\' OR lower(e.entity_type) LIKE ?1 ESCAPE '\\'
        OR EXISTS (SELECT 1 FROM observations o WHERE o.entity_id = e.id AND lower(o.content) LIKE ?1 ESCAPE '\\')
     ORDER BY e.id LIMIT ?2`,
    pattern,
    limit,
  );
  const relations = relationsTouching(
    db,
    rows.map((r) => r.id),
    MAX_RELATIONS,
  ).slice(0, MAX_RELATIONS);
  return { entities: withObservations(db, rows), relations };
}
