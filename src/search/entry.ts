/**
 * The search calls of a context, whole: search_nodes (`searchNodes`) and
 * recall (`recallItems`), each after the one step that may wait
 * (`prepareQuery`), and search_documents (`searchDocuments`), which never
 * waits. The context's object runs the step, then the op inside
 * the call's transaction (src/context/runner.ts).
 *
 * ## Invariants
 * - `prepareQuery` parses the text once (./query.ts); the op reads only the
 *   parsed value.
 * - The embedder's call in `prepareQuery` is a search's only await, so it
 *   runs before the transaction; the op never waits.
 * - Every item an op returns counts as a (light) retrieval of it, a `search`
 *   access (src/priority/track.ts). As of a past time, only the entities
 *   that exist now count: a deleted one must not regain statistics or
 *   associations.
 * - As of a past time, entities are matched on their words then (./asof.ts):
 *   no synonyms, vectors or aliases; names are read as they were then.
 */
import * as documents from "../documents/commands";
import { parseAsOf } from "../graph/asof";
import { idsByName } from "../graph/rows";
import { itemKey, type ItemEffects, type ItemKind } from "../items";
import { modelOptions } from "../priority/weights";
import type { Settings } from "../settings";
import type { Db } from "../storage/sql";
import { withAliasHits } from "./aliases";
import { withProvenance } from "./provenance";
import { searchGraphAt } from "./asof";
import type { WeightedTerm } from "./expand";
import type { RankedId } from "./fuse";
import { searchGraph, searchParams, type SearchOptions, type SearchResult } from "./index";
import { expansionFor, SEMANTIC_CANDIDATES, searchMode, semanticEntities } from "./meaning";
import { parseQuery, type ParsedQuery } from "./query";
import { textQuery } from "./rank";
import { recall, type RecallResult } from "./recall";
import { itemBoost } from "./score";
import { nearestToQuery, type Embedder } from "./semantic";
import { queryTerms } from "./terms";

/** A query ready for its op: parsed, with what the ranking gets beyond its words (./meaning.ts), and the past time it asks about, if any. */
export interface PreparedQuery {
  query: ParsedQuery;
  expansion?: WeightedTerm[];
  semantic?: RankedId[];
  asOf?: string | number;
}

/** What an op reads: the call's database and time. */
interface SearchScope {
  db: Db;
  now: number;
}

/** An op's answer, and the items it returned as accesses. */
interface Searched<T> {
  value: T;
  effects: ItemEffects;
}

/**
 * `text` parsed, with synonyms unless SEARCH_EXPANSION is off and, with an
 * embedder, the entities nearest in meaning (hybrid mode). A search as of a
 * past time gets neither.
 */
export async function prepareQuery(
  db: Db,
  text: string,
  s: Pick<Settings, "SEARCH_EXPANSION">,
  embedder: Embedder | null,
  asOf?: string | number,
): Promise<PreparedQuery> {
  const query = parseQuery(text);
  if (asOf !== undefined) return { query, asOf };
  const expansion = s.SEARCH_EXPANSION ? expansionFor(query) : undefined;
  const near = embedder ? await nearestToQuery(db, embedder, query.raw, SEMANTIC_CANDIDATES) : null;
  return near ? { query, expansion, semantic: semanticEntities(db, near) } : { query, expansion };
}

/** search_nodes: now, a query naming an entity merged into another also finds that entity (./aliases.ts); as of a past time, the graph as it stood then. */
export function searchNodes({ db, now }: SearchScope, prepared: PreparedQuery, opts: SearchOptions, s: Settings): Searched<SearchResult> {
  const { query, expansion, semantic, asOf } = prepared;
  const params = searchParams(opts, s);
  const model = modelOptions(s);
  if (asOf !== undefined) {
    const result = searchGraphAt(db, query, params, now, parseAsOf(asOf, now), model);
    return { value: result, effects: searched(existingEntities(db, result).map(itemKey.entity)) };
  }
  const result = withAliasHits(db, searchGraph(db, query, params, now, model, { expansion, semantic }), query);
  return { value: result, effects: searched(result.entities.map((e) => itemKey.entity(e.name))) };
}

/** recall: the best items across kinds within a token budget (./recall.ts); with `provenance`, who wrote each item's text and when (./provenance.ts). */
export function recallItems(
  { db, now }: SearchScope,
  prepared: PreparedQuery,
  opts: { budgetTokens: number; kinds: ItemKind[]; provenance?: boolean },
  s: Settings,
): Searched<RecallResult> {
  const { query, expansion, semantic } = prepared;
  const { provenance, ...packing } = opts;
  const result = recall(db, query, { ...packing, now, model: modelOptions(s), expansion, semantic, mode: searchMode(expansion, semantic) });
  const value = provenance ? { ...result, items: withProvenance(db, result.items) } : result;
  return { value, effects: searched(result.items.map((i) => i.key)) };
}

/**
 * search_documents: documents by the BM25F recall ranks them with, the query's synonyms included unless
 * SEARCH_EXPANSION is off (./terms.ts, ./rank.ts textQuery), × the same recency and damped priority (./score.ts, `itemBoost`).
 */
export function searchDocuments({ db, now }: SearchScope, query: ParsedQuery, limit: number, s: Settings): Searched<documents.DocumentSearch> {
  const terms = queryTerms(db, query, s.SEARCH_EXPANSION ? expansionFor(query) : []);
  return documents.search(db, textQuery(terms), limit, itemBoost(now, modelOptions(s)));
}

/** Effects of a search that returned `items` and removed or moved none. */
const searched = (items: readonly string[]): ItemEffects => ({ accesses: items.map((item) => ({ item, kind: "search" })), removed: [], moved: [] });

/** The names of the result's entities that are entities now (an as-of search may return one deleted since). */
function existingEntities(db: Db, result: SearchResult): string[] {
  const names = result.entities.map((e) => e.name);
  const ids = idsByName(db, names);
  return names.filter((n) => ids.has(n));
}
