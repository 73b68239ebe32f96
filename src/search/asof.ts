/**
 * search_nodes with asOf: a search of the graph as it stood then.
 *
 * The indexes hold only what holds now, so the answer joins two parts
 * (src/graph/asof.ts rebuilds the past):
 * - entities unchanged since asOf are found and ranked by the normal search,
 *   since their text then is their text now;
 * - entities changed since (their observations, or they were created or
 *   deleted) are matched on their text as it was then, a query term
 *   matching when each of its parts starts a word of the text, and scored by
 *   the share of terms matched, relative to the best normal score.
 * Relations are those among the returned entities at asOf; paths are the
 * normal search's paths through unchanged entities only.
 */
import { entityAt } from "../graph/asof";
import { rewind } from "../graph/rewind";
import { idsByName } from "../graph/rows";
import type { Relation } from "../graph/types";
import type { ModelOptions } from "../priority/model";
import type { Db } from "../storage/sql";
import { searchGraph, SEARCH_MAX_RELATIONS, type ScoredEntity, type SearchParams, type SearchResult } from "./index";
import type { ParsedQuery } from "./query";
import { CJK_RUN, withoutCjk, WORD, wordParts, type QueryTerm } from "./tokenize";
import { relationsAmong } from "./walk";

const round = (x: number) => Number(x.toPrecision(4));

/** The words of `text` as the tokenizer splits them, and its CJK runs. */
function wordsOf(text: string): { words: string[]; cjk: string } {
  const normal = text.normalize("NFKC");
  const words = [...withoutCjk(normal).matchAll(WORD)].flatMap((m) => [...wordParts(m[0]), wordParts(m[0]).join("")]);
  return { words, cjk: [...normal.matchAll(CJK_RUN)].map((m) => m[0]).join(" ") };
}

const matches = (t: QueryTerm, w: { words: string[]; cjk: string }) =>
  t.cjk ? w.cjk.includes(t.key) : t.parts.every((p) => w.words.some((word) => word.startsWith(p)));

export function searchGraphAt(db: Db, query: ParsedQuery, params: SearchParams, now: number, asOf: number, model: ModelOptions): SearchResult {
  const past = rewind(db, asOf, null);
  const current = searchGraph(db, query, params, now, model);
  const { terms } = query;
  if (terms.length === 0) return current;

  const later = new Set(
    db
      .all<{ name: string }>(
        "SELECT name FROM entities WHERE created_at > ? AND name IN (SELECT value FROM json_each(?))",
        asOf,
        JSON.stringify(current.entities.map((e) => e.name)),
      )
      .map((r) => r.name),
  );
  const clean = current.entities.filter((e) => !past.changed.has(e.name) && !later.has(e.name));
  const top = clean.reduce((m, e) => Math.max(m, e.score), 0) || 1;
  const rebuilt: ScoredEntity[] = [];
  for (const e of past.entities.values()) {
    if (e.createdAt > asOf) continue;
    const then = entityAt(e, asOf, false);
    const text = [then.name, then.entityType, ...then.observations].join("\n");
    // Most changed entities share no letters with the query: skip them before splitting their text into words.
    const lower = text.normalize("NFKC").toLowerCase();
    if (!terms.some((t) => t.parts.some((p) => lower.includes(p)))) continue;
    const words = wordsOf(text);
    const matched = terms.filter((t) => matches(t, words)).length;
    if (matched > 0) rebuilt.push({ ...then, score: round((top * matched) / terms.length), role: "entry" });
  }
  const entities = [...clean, ...rebuilt].sort((a, b) => b.score - a.score).slice(0, params.maxTotalNodes);

  const kept = new Set(entities.map((e) => e.name));
  const relations = new Map<string, Relation & { id: number }>();
  for (const r of past.relations.values()) {
    if (r.createdAt <= asOf && kept.has(r.from) && kept.has(r.to)) relations.set(JSON.stringify([r.from, r.to, r.relationType]), r);
  }
  const cleanKept = entities.filter((e) => !past.changed.has(e.name)).map((e) => e.name);
  const ids = [...idsByName(db, cleanKept).values()];
  for (const r of relationsAmong(db, ids, SEARCH_MAX_RELATIONS)) {
    relations.set(JSON.stringify([r.from_name, r.to_name, r.relation_type]), { id: r.id, from: r.from_name, to: r.to_name, relationType: r.relation_type });
  }
  const sorted = [...relations.values()].sort((a, b) => a.id - b.id);
  const result: SearchResult = {
    entities,
    relations: sorted.slice(0, SEARCH_MAX_RELATIONS).map((r) => ({ from: r.from, to: r.to, relationType: r.relationType })),
    paths: current.paths.filter((p) => p.every((n) => kept.has(n) && !past.changed.has(n))),
  };
  if (sorted.length > SEARCH_MAX_RELATIONS) result.note = `Only the first ${SEARCH_MAX_RELATIONS} relations among these entities are shown.`;
  return result;
}
