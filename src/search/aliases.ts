/**
 * search_nodes by an old name: when the query's name key (./query.ts) is the
 * key of the name of an entity merged into another, that
 * entity is an entry of the answer, first, and `aliases` says it was reached
 * by alias (alias → entity). The answer otherwise keeps its shape, without
 * the note of a search that found nothing.
 */
import { aliasesWithKey } from "../graph/aliases";
import { withObservations, type EntityRow } from "../graph/rows";
import type { Db } from "../storage/sql";
import type { ScoredEntity, SearchResult } from "./index";
import type { ParsedQuery } from "./query";

export function withAliasHits(db: Db, result: SearchResult, query: ParsedQuery): SearchResult & { aliases?: Record<string, string> } {
  const hits = aliasesWithKey(db, query.nameKey);
  if (hits.length === 0) return result;
  const shown = new Set(result.entities.map((e) => e.name));
  const missing = [...new Set(hits.map((h) => h.entity))].filter((n) => !shown.has(n));
  const rows = db.all<EntityRow>("SELECT id, name, entity_type FROM entities WHERE name IN (SELECT value FROM json_each(?)) ORDER BY id", JSON.stringify(missing));
  const top = result.entities.reduce((m, e) => Math.max(m, e.score), 0) || 1;
  const added: ScoredEntity[] = withObservations(db, rows).map((e) => ({ ...e, score: top, role: "entry" }));
  // A search that found nothing says so in its note (no match, no terms), which the alias's entity now contradicts.
  const { note, ...rest } = result;
  return {
    ...rest,
    ...(note !== undefined && result.entities.length > 0 ? { note } : {}),
    entities: [...added, ...result.entities],
    aliases: Object.fromEntries(hits.map((h) => [h.alias, h.entity])),
  };
}
