/**
 * recall: the best items for a question across entities, files and
 * documents, packed into a token budget.
 *
 * ## Ranking
 * - Entities: the whole-query ranking of ./rank.ts; each item's text is its
 *   type, then its best matching observations (PASSAGES of them, each cut
 *   to PASSAGE_CHARS, each on its own line after "- "), or its first ones
 *   when only its name or type matched; then its relations whose type holds
 *   a word of the question (`relationLines`).
 * - Files and documents: the same BM25F over path (or title, weight 2) and
 *   content, any query term matching, times the same recency and damped
 *   priority as entities (./score.ts, `itemBoost`), every match scored, so
 *   each kind's candidates are its exact top TEXT_MATCHES at any age
 *   (src/items/text-rank.ts); each item's text is FTS5's snippet of the
 *   best window of the content.
 * All three are BM25F sums over the same terms with the same idf, k1, b,
 * phrase bonus and expansion (./terms.ts, ./rank.ts textQuery), so one
 * order sorts them. A semantic list (hybrid mode) reaches the entities only.
 *
 * ## Packing
 * Best first into the budget (./pack.ts); then, while room is left, the
 * entities connecting the packed entities (short paths over relations) and
 * the items most used together with the packed ones (co-visitation).
 * `omitted` counts the matches that did not fit.
 */
import { documentHeads, rankDocuments } from "../documents/search";
import { DomainError } from "../errors";
import { fileHeads, rankFiles } from "../files/search";
import { idsByName, RELATION_SELECT, relationLabel, toRelation, type RelationRow } from "../graph/rows";
import { relatedTo } from "../covisit/recommend";
import { ITEM_KINDS, itemKey, itemRef, NO_MATCH_NOTE, NO_TERMS_NOTE, type ItemKind } from "../items";
import { RECALL_TOKENS } from "../limits";
import { DEFAULT_MODEL, type ModelOptions } from "../priority/model";
import type { Db } from "../storage/sql";
import { firstObservations, observationTexts } from "./match";
import { Packer, type RecallItem } from "./pack";
import type { ParsedQuery } from "./query";
import { rankQuery, textQuery, type RankOptions } from "./rank";
import { itemBoost } from "./score";
import { queryTerms, type RankTerm } from "./terms";
import { connect, entityRows } from "./walk";

const RECALL_BUDGET = RECALL_TOKENS;

/** Matches considered per kind. */
const ENTITY_MATCHES = 40;
const TEXT_MATCHES = 15;
/** Observations shown per matched entity, and characters of each. */
const PASSAGES = 3;
const PASSAGE_CHARS = 400;
/** Matched entities whose connecting paths are looked for, and the longest path. */
const CONNECT_FROM = 5;
const CONNECT_LENGTH = 3;
/** Co-visited items looked up, from the first packed items. */
const COVISITED = 5;
const COVISIT_FROM = 10;
/** Characters of a file or document shown when it comes in as co-visited. */
const HEAD_CHARS = 300;

/** How a search matched: words only, words and their synonyms (./expand.ts), or words, synonyms and meaning (./semantic/). */
export type RecallMode = "lexical" | "lexical+expansion" | "hybrid";

export interface RecallOptions extends Pick<RankOptions, "expansion" | "semantic"> {
  budgetTokens: number;
  kinds: readonly ItemKind[];
  now: number;
  model?: ModelOptions;
  /** What `expansion` and `semantic` make of the search, reported back as the answer's mode. */
  mode?: RecallMode;
}

export interface RecallResult {
  items: RecallItem[];
  /** Matching items left out for the budget. */
  omitted: number;
  budgetTokens: number;
  usedTokens: number;
  mode: RecallMode;
  note?: string;
}

const round = (x: number) => Number(x.toPrecision(4));
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();
const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/**
 * An entity's text in recall: its type, then each observation on its own line after "- ", so two never run together,
 * then the relations the question asks about, one a line ("Maria Chen -owns-> checkout-service").
 */
const entityText = (type: string, observations: readonly string[], relations: readonly string[] = []) =>
  [`(${type})`, ...[...observations, ...relations].map((line) => `- ${clip(oneLine(line), PASSAGE_CHARS)}`)].join("\n");

/** Relations shown under one matched entity at most, and the relation ends of each direction read to find them. */
const RELATIONS_SHOWN = 3;
const RELATION_ENDS_READ = 512;

/**
 * Each entity's relations whose type holds a word of the query, at most RELATIONS_SHOWN each, oldest first, as
 * "from -type-> to". A question about a relation ("who owns checkout") is often answered by the entity at its other
 * end, whose own text holds none of the question's words: the line under the matched entity names it. A type's words
 * are split at spaces, "_", "-" and "." and compared without case to the query's words; the ranking is unchanged.
 * A hub's relations are read up to RELATION_ENDS_READ each way, so a question about one of its later ones may miss it.
 */
function relationLines(db: Db, ids: readonly number[], query: ParsedQuery): Map<number, string[]> {
  const words = [...new Set(query.terms.flatMap((t) => (t.cjk ? [] : t.parts)).filter((w) => w.length >= 2))];
  const out = new Map<number, string[]>();
  if (words.length === 0 || ids.length === 0) return out;
  // Each end through its own index, at most RELATION_ENDS_READ of each (a join on `from_id = e OR to_id = e` scanned
  // every relation, 1.1 s at 100,000 entities; reading a hub's every end would cost time in its degree).
  const typeMatches = `EXISTS (SELECT 1 FROM json_each(?2) w
    WHERE ' ' || replace(replace(replace(relation_type, '_', ' '), '-', ' '), '.', ' ') || ' ' LIKE '% ' || w.value || ' %')`;
  const found = db.all<{ e: number; outs: string; ins: string }>(
    `SELECT j.value AS e,
       (SELECT json_group_array(id) FROM (SELECT id, relation_type FROM relations WHERE from_id = j.value LIMIT ${RELATION_ENDS_READ}) WHERE ${typeMatches}) AS outs,
       (SELECT json_group_array(id) FROM (SELECT id, relation_type FROM relations WHERE to_id = j.value LIMIT ${RELATION_ENDS_READ}) WHERE ${typeMatches}) AS ins
     FROM json_each(?1) j`,
    JSON.stringify(ids),
    JSON.stringify(words),
  );
  const chosen = new Map<number, number[]>();
  for (const f of found) {
    const relationIds = [...new Set([...(JSON.parse(f.outs) as number[]), ...(JSON.parse(f.ins) as number[])])].sort((a, b) => a - b);
    if (relationIds.length > 0) chosen.set(f.e, relationIds.slice(0, RELATIONS_SHOWN));
  }
  const lines = new Map(
    db
      .all<RelationRow>(`${RELATION_SELECT} WHERE r.id IN (SELECT value FROM json_each(?))`, JSON.stringify([...chosen.values()].flat()))
      .map((r) => [r.id, relationLabel(toRelation(r))]),
  );
  for (const [e, relationIds] of chosen)
    out.set(
      e,
      relationIds.flatMap((id) => lines.get(id) ?? []),
    );
  return out;
}

/** The best entities as recall items, and the query's terms as they were ranked. */
function entityMatches(db: Db, query: ParsedQuery, opts: RecallOptions, model: ModelOptions): { items: RecallItem[]; terms: RankTerm[] } {
  const ranking = rankQuery(db, query, {
    now: opts.now,
    model,
    expansion: opts.expansion,
    semantic: opts.semantic,
    top: ENTITY_MATCHES,
    passages: true,
  });
  const ranked = ranking.entities.slice(0, ENTITY_MATCHES);
  const rows = new Map(
    entityRows(
      db,
      ranked.map((e) => e.id),
    ).map((r) => [r.id, r]),
  );
  const texts = observationTexts(
    db,
    ranked.flatMap((e) => e.passages.slice(0, PASSAGES)),
  );
  const bare = firstObservations(
    db,
    ranked.filter((e) => e.passages.length === 0).map((e) => e.id),
    PASSAGES,
  );
  const relations = relationLines(
    db,
    ranked.map((e) => e.id),
    query,
  );
  const items = ranked.flatMap((e) => {
    const row = rows.get(e.id);
    if (!row) return [];
    const shown = e.passages.length > 0 ? e.passages.slice(0, PASSAGES).flatMap((id) => texts.get(id) ?? []) : (bare.get(e.id) ?? []);
    const text = entityText(row.entity_type, shown, relations.get(e.id));
    return [{ key: itemKey.entity(row.name), kind: "entity" as const, name: row.name, score: e.score, text }];
  });
  return { items, terms: ranking.terms };
}

/** Items connecting the packed entities, and items used together with the packed items. */
function extras(db: Db, packed: readonly RecallItem[], kinds: ReadonlySet<ItemKind>): RecallItem[] {
  const have = new Set(packed.map((i) => i.key));
  const out: RecallItem[] = [];
  const entityNames = packed.filter((i) => i.kind === "entity").map((i) => i.name);
  const connectorIds: number[] = [];
  if (kinds.has("entity") && entityNames.length > 1) {
    const ids = idsByName(db, entityNames.slice(0, CONNECT_FROM));
    const entries = [...ids.values()];
    const known = new Set(entries);
    for (const { nodes } of connect(db, entries, CONNECT_LENGTH)) {
      for (const n of nodes) {
        if (known.has(n)) continue;
        known.add(n);
        connectorIds.push(n);
      }
    }
  }
  const related = relatedTo(
    db,
    packed.slice(0, COVISIT_FROM).map((i) => i.key),
    COVISITED,
  ).flatMap((r) => {
    const ref = itemRef(r.item);
    return ref && kinds.has(ref.kind) && !have.has(ref.key) ? [ref] : [];
  });
  const coEntities = idsByName(
    db,
    related.filter((r) => r.kind === "entity").map((r) => r.name),
  );
  const entityIds = [...connectorIds, ...coEntities.values()];
  const rows = new Map(entityRows(db, entityIds).map((r) => [r.id, r]));
  const firsts = firstObservations(db, entityIds, 2);
  const entityItem = (id: number, via: RecallItem["via"]): RecallItem[] => {
    const row = rows.get(id);
    if (!row || have.has(itemKey.entity(row.name))) return [];
    have.add(itemKey.entity(row.name));
    const text = entityText(row.entity_type, firsts.get(id) ?? []);
    return [{ key: itemKey.entity(row.name), kind: "entity", name: row.name, score: 0, text, via }];
  };
  for (const id of connectorIds) out.push(...entityItem(id, "connector"));
  const files = fileHeads(
    db,
    related.filter((r) => r.kind === "file").map((r) => r.name),
    HEAD_CHARS,
  );
  const docs = documentHeads(
    db,
    related.filter((r) => r.kind === "doc").map((r) => r.name),
    HEAD_CHARS,
  );
  for (const r of related) {
    if (r.kind === "entity") {
      const id = coEntities.get(r.name);
      if (id !== undefined) out.push(...entityItem(id, "covisited"));
      continue;
    }
    const head = (r.kind === "file" ? files : docs).get(r.name);
    if (head !== undefined) out.push({ key: r.key, kind: r.kind, name: r.name, score: 0, text: clip(oneLine(head), HEAD_CHARS), via: "covisited" });
  }
  return out;
}

/** recall: see the module comment. Throws DomainError("Invalid") for a budget out of range, no kinds or an unknown kind. */
export function recall(db: Db, query: ParsedQuery, opts: RecallOptions): RecallResult {
  const { budgetTokens } = opts;
  if (!Number.isInteger(budgetTokens) || budgetTokens < RECALL_BUDGET.min || budgetTokens > RECALL_BUDGET.max) {
    throw new DomainError("Invalid", `budgetTokens must be a whole number from ${RECALL_BUDGET.min} to ${RECALL_BUDGET.max}, got ${budgetTokens}`);
  }
  const unknown = opts.kinds.filter((k) => !(ITEM_KINDS as readonly string[]).includes(k));
  if (opts.kinds.length === 0 || unknown.length > 0) {
    throw new DomainError("Invalid", `kinds must name at least one of ${ITEM_KINDS.join(", ")}${unknown.length ? `; unknown: ${unknown.join(", ")}` : ""}`);
  }
  if (query.raw.trim() === "") throw new DomainError("Invalid", "query must not be empty");
  const kinds = new Set(opts.kinds);
  const model = opts.model ?? DEFAULT_MODEL;
  const packer = new Packer(budgetTokens);
  const { terms } = query;
  const empty = (note: string): RecallResult => ({ items: [], omitted: 0, budgetTokens, usedTokens: packer.usedTokens, mode: opts.mode ?? "lexical", note });
  if (terms.length === 0) return empty(NO_TERMS_NOTE);

  const matches: RecallItem[] = [];
  const entities = kinds.has("entity") ? entityMatches(db, query, opts, model) : undefined;
  if (entities) matches.push(...entities.items);
  // Files and documents: the entities' terms, synonyms, idf and BM25 parameters (./rank.ts textQuery), so one order sorts all three.
  // Each kind's candidates are its exact best TEXT_MATCHES, those holding every word first.
  const text = textQuery(entities?.terms ?? queryTerms(db, query, opts.expansion ?? []));
  const boost = itemBoost(opts.now, model);
  if (kinds.has("file")) {
    for (const f of rankFiles(db, text, TEXT_MATCHES, { boost })) {
      matches.push({ key: itemKey.file(f.path), kind: "file", name: f.path, score: f.score, text: oneLine(f.snippet) });
    }
  }
  if (kinds.has("doc")) {
    for (const d of rankDocuments(db, text, TEXT_MATCHES, { boost })) {
      matches.push({ key: itemKey.doc(d.id), kind: "doc", name: d.id, score: d.score, text: oneLine(d.snippet) || oneLine(d.title) });
    }
  }
  // Ordered by exact score, rounded after: rounding first would let two close scores tie and swap by key.
  // Equal scores keep each kind's own order (entities by id, files and documents by key), entities first: the sort is stable.
  matches.sort((a, b) => b.score - a.score);
  for (const m of matches) m.score = round(m.score);

  let omitted = 0;
  for (const item of matches) if (!packer.add(item)) omitted++;
  if (packer.items.length > 0) for (const item of extras(db, [...packer.items], kinds)) packer.add(item);
  const result: RecallResult = { items: packer.items, omitted, budgetTokens, usedTokens: packer.usedTokens, mode: opts.mode ?? "lexical" };
  if (matches.length === 0) result.note = NO_MATCH_NOTE;
  return result;
}
