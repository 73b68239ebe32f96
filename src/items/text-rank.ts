/**
 * `rankByText`: one kind's items (./text-index.ts) ranked for a query by
 * BM25F times a boost, with a snippet, for recall and search_documents.
 *
 * ## Score
 * The entities' BM25F (src/search/rank.ts) over an item's two fields, its
 * label (path or title, weighing `labelWeight`) and its content:
 *
 *   tf~_t(d)  = labelWeight × label_t / B(label) + content_t / B(content)
 *   B(f)      = 1 − b + b × |f| / avg|f|      label in characters, content in UTF-8 bytes
 *   lexical   = Σ_t w_t × idf_t × tf~ × (k1 + 1) / (k1 + tf~) + phrase bonus
 *   score(d)  = lexical × the caller's boost (recency and damped priority)
 *
 * label_t and content_t are 1 when the field holds the term, as an entity's
 * observation counts a word once. An expansion term adds its weighted
 * frequency to the query word it stands for and is saturated with it; a
 * broader word never makes an item relevant on its own. The phrase bonus
 * (the pair's, given by the caller) counts once per pair of adjacent query
 * terms found within `phraseDistance` words in one field. The caller gives
 * each term's idf (one per term for every kind, src/search/terms.ts) and
 * k1 and b, so every kind is scored by one formula.
 *
 * ## Exact top k
 * One statement walks the terms' whole FTS5 doclists with each posting's
 * field, sums each item's BM25F and orders every relevant item by the whole
 * score (`ORDER BY lexical × boost DESC, key LIMIT k + MARGIN`), so no item
 * is left out for its age and only the rows kept reach JavaScript. Any term
 * may match; the items holding every query term (or a
 * synonym of it) come first, so a partial match never pushes out a complete
 * one. When the items holding every term (one MATCH with AND, counted
 * first) fill the answer, the statement scores them alone. The
 * boost's SQL may differ from its JavaScript in the last bits (exp, ln), so
 * the rows read are rescored in JavaScript, which is the reference, and
 * sorted there. An unread row's JavaScript score is at most its SQL
 * score × (1 + SQL_DRIFT), so when the k-th rescored row beats the last row
 * read by more than that, no unread row can enter; otherwise (ties at the
 * cut) four times as many rows are read, until the test holds or every
 * match is read. Ties keep the order of the item's key.
 *
 * ## Invariants
 * - Every string and number of the query is a bound parameter and every
 *   MATCH expression comes from ./text-index.ts, so no query text is FTS5 or
 *   SQL syntax.
 */
import type { Db } from "../storage/sql";
import { STATS_COLUMNS } from "./stats";
import {
  anyExpression,
  CONTENT,
  fieldExpression,
  LABEL,
  quote,
  type RankTextOptions,
  type TextBoost,
  type TextHit,
  type TextIndex,
  type TextQuery,
  type TextQueryTerm,
  within,
} from "./text-index";

const UNBOOSTED: TextBoost = { sql: "1.0", of: () => 1 };
/**
 * The most a boost's SQL value and its JavaScript value may differ, relative:
 * each of its few dozen operations is correctly rounded or (exp, ln, sqrt) within
 * an ulp or two, about 1e-16 each; test/priority/priority-sql.test.ts checks 1e-12.
 */
const SQL_DRIFT = 1e-9;
/** Rows read beyond the k asked for, so rescoring in JavaScript decides near-ties at the cut without a second read. */
const MARGIN = 8;

/** Items the average lengths are taken over: the newest, as for entities (src/search/match.ts), so a query's cost does not grow with the kind. */
const AVERAGE_OVER = 500;

/** The average length of each field over the newest AVERAGE_OVER items of `index`, as the score measures them. */
function averageLengths(db: Db, index: TextIndex): { label: number; content: number } {
  const row = db.one<{ label: number | null; content: number | null }>(
    `SELECT avg(l) AS label, avg(c) AS content
     FROM (SELECT length(${index.label}) AS l, octet_length(content) AS c FROM ${index.table} ORDER BY ${index.rowid} DESC LIMIT ${AVERAGE_OVER})`,
  );
  return { label: row?.label ?? 0, content: row?.content ?? 0 };
}

/** A row as SQLite ranks it: its index rowid and SQLite's value of the score, beside the hit's columns but the snippet. */
type Ranked<T> = T & { fts_rowid: number; sql_score: number };

/**
 * The statement that scores every item holding a query term (see the module comment), or only those holding every
 * query term (`complete`), and keeps the best `?1` rows; and its parameters but that limit. Each number and string of
 * the query is a parameter.
 */
function rankingStatement(
  db: Db,
  index: TextIndex,
  query: TextQuery,
  opts: RankTextOptions,
  complete: string | undefined,
): { sql: string; params: SqlStorageValue[] } | undefined {
  const { terms, k1, b } = query;
  const params: SqlStorageValue[] = [];
  const param = (v: SqlStorageValue) => {
    params.push(v);
    return `?${params.length + 1}`;
  };
  const num = (v: number) => `CAST(${param(v)} AS REAL)`;
  const lists: [t: number, field: number, match: string][] = [];
  terms.forEach((q, t) => {
    for (const field of [LABEL, CONTENT] as const) {
      const match = fieldExpression(index, q.term, field);
      if (match !== undefined) lists.push([t, field, match]);
    }
  });
  query.pairs.forEach((p, k) => {
    if (p.a.cjk || p.b.cjk) return;
    const near = `NEAR(${quote(p.a.parts.join(" "))} ${quote(p.b.parts.join(" "))}, ${Math.trunc(query.phraseDistance)})`;
    lists.push([-1 - k, LABEL, within([index.label, ...index.contentColumns], near)]);
  });
  if (lists.length === 0) return undefined;
  const into = (t: number) => terms[t]?.of ?? t;
  const matched = [...new Set(lists.filter(([t]) => t >= 0).map(([t]) => t))];
  const targets = [...new Set(matched.map(into))];
  // The query's own terms this index can match: an item holding each (or a synonym of it) holds every term.
  const literal = targets.filter((t) => (terms[t]?.index ?? -1) >= 0);
  const relevant = matched.filter((t) => !terms[t]?.broader);
  const avg = averageLengths(db, index);
  // B(f) = 1 − b + b × |f| / avg|f|; a field empty in every item is its average length.
  const norm = (length: string, average: number) => (average > 0 ? `(${num(1 - b)} + ${num(b)} * ${length} / ${num(average)})` : "1.0");
  const label = `${num(index.labelWeight)} / ${norm(`length(i.${index.label})`, avg.label)}`;
  const content = `1.0 / ${norm("octet_length(i.content)", avg.content)}`;
  // Each target's tf~: its own postings and its synonyms' × their weight, summed per field, then × the field's share.
  const sums = targets.flatMap((i) => {
    const arms = matched.filter((t) => into(t) === i).map((t) => `WHEN ${t} THEN ${terms[t]?.of === undefined ? "1.0" : num((terms[t] as TextQueryTerm).weight)}`);
    return [LABEL, CONTENT].map((f) => `sum(CASE WHEN p.f = ${f} THEN CASE p.t ${arms.join(" ")} END END) AS f${f}_${i}`);
  });
  // tf~ × (k1 + 1) / (k1 + tf~) as (k1 + 1) × (1 − k1 / (k1 + tf~)), so each target's tf~ is written once.
  const parts = targets.map((i) => {
    const q = terms[i] as TextQueryTerm;
    const tf = `(coalesce(g.f${LABEL}_${i}, 0.0) * ${label} + coalesce(g.f${CONTENT}_${i}, 0.0) * ${content})`;
    return `${num(q.weight * q.idf * (k1 + 1))} * (1.0 - ${num(k1)} / (${num(k1)} + ${tf}))`;
  });
  const bonuses = query.pairs.flatMap((p, k) => (p.a.cjk || p.b.cjk ? [] : [`coalesce(max(CASE p.t WHEN ${-1 - k} THEN ${num(p.bonus)} END), 0.0)`]));
  // How many targets an item holds by terms of `set`: `held` (any relevant term), `literal` (the query's own, or their synonyms).
  const targetsHeld = (set: readonly number[]) => (set.length === 0 ? "0" : `count(DISTINCT CASE p.t ${set.map((t) => `WHEN ${t} THEN ${into(t)}`).join(" ")} END)`);
  const named = [index.key, ...index.columns].map((c) => `i.${c}`).join(", ");
  const boost = opts.boost ?? UNBOOSTED;
  // Only the items matching `complete`, when given: read once (a rowid constraint on the doclists' own walk would make
  // FTS5 seek every rowid in each).
  const restrict = complete === undefined ? "" : ` WHERE p.r IN (SELECT rowid FROM ${index.fts} WHERE ${index.fts} MATCH ${param(complete)})`;
  // The postings alone first (no row read per posting); each matching item's row once, for its lengths and its boost;
  // the rows kept only, for the columns the answer carries.
  const sql = `WITH q(t, f, m) AS MATERIALIZED (SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(${param(JSON.stringify(lists))})),
    p AS MATERIALIZED (SELECT x.rowid AS r, q.t AS t, q.f AS f FROM q, ${index.fts} x WHERE ${index.fts} MATCH q.m),
    g AS (
      SELECT r, ${sums.join(", ")}, ${bonuses.length > 0 ? bonuses.join(" + ") : "0.0"} AS bonus,
        ${targetsHeld(relevant)} AS held, ${targetsHeld(relevant.filter((t) => literal.includes(into(t))))} AS literal
      FROM p${restrict} GROUP BY r),
    s AS (
      SELECT g.r AS r, i.${index.key} AS k, ${parts.join(" + ")} + g.bonus AS lexical, (g.literal = ${literal.length}) AS all_terms, ${boost.sql} AS boost
      FROM g JOIN ${index.table} i ON i.${index.rowid} = g.r
      WHERE g.held > 0),
    top AS (SELECT r, k, lexical, all_terms, lexical * boost AS sql_score FROM s ORDER BY all_terms DESC, sql_score DESC, k LIMIT ?1)
    SELECT ${named}, top.r AS fts_rowid, top.lexical, top.sql_score, top.all_terms, i.created_at, i.updated_at, ${STATS_COLUMNS}
    FROM top JOIN ${index.table} i ON i.${index.rowid} = top.r
    ORDER BY top.all_terms DESC, top.sql_score DESC, top.k`;
  return { sql, params };
}

/** FTS5's snippet of each row of `rows` for `match`, set on the row. */
function cutSnippets(db: Db, index: TextIndex, match: string, rows: readonly Ranked<TextHit>[], opts: RankTextOptions): void {
  if (rows.length === 0) return;
  const cut = db.all<{ r: number; snippet: string }>(
    `SELECT rowid AS r, snippet(${index.fts}, ${index.snippetColumn}, ?3, ?3, '…', ${opts.snippetTokens ?? index.snippetTokens}) AS snippet
     FROM ${index.fts} WHERE ${index.fts} MATCH ?1 AND rowid IN (SELECT value FROM json_each(?2))`,
    match,
    JSON.stringify(rows.map((r) => r.fts_rowid)),
    opts.mark ?? "",
  );
  const byRowid = new Map(cut.map((c) => [c.r, c.snippet]));
  for (const r of rows) r.snippet = byRowid.get(r.fts_rowid) ?? "";
}

/** The best `limit` items of `index` for `query`, best first (see the module comment); empty when no item is relevant. */
export function rankByText<T extends TextHit>(db: Db, index: TextIndex, query: TextQuery, limit: number, opts: RankTextOptions = {}): T[] {
  if (limit <= 0) return [];
  // Items holding every term come first: when they fill the answer, the others are never scored.
  const every = everyTerm(index, query);
  const fills = every !== undefined && (db.one<{ n: number }>(`SELECT count(*) AS n FROM ${index.fts} WHERE ${index.fts} MATCH ?1`, every)?.n ?? 0) >= limit;
  const top = exactTop<T>(db, index, query, limit, opts, fills ? every : undefined);
  const shown = query.terms.flatMap((q) => (q.broader ? [] : (anyExpression(index, q.term) ?? [])));
  cutSnippets(db, index, shown.map((e) => `(${e})`).join(" OR "), top, opts);
  return top;
}

/** The MATCH expression of the items holding each of the query's own terms (itself or a synonym); undefined for fewer than two. */
function everyTerm(index: TextIndex, query: TextQuery): string | undefined {
  const { terms } = query;
  const groups = terms.flatMap((q, i) => {
    if (q.index < 0) return [];
    const forms = terms.flatMap((s, t) => ((t === i || s.of === i) && !s.broader ? (anyExpression(index, s.term) ?? []) : []));
    return anyExpression(index, q.term) === undefined ? [] : [forms.map((e) => `(${e})`).join(" OR ")];
  });
  return groups.length > 1 ? groups.map((g) => `(${g})`).join(" AND ") : undefined;
}

/** The exact best `limit` rows of the ranking statement, of the items matching `complete` only when given, under lexical × boost in JavaScript. */
function exactTop<T extends TextHit>(db: Db, index: TextIndex, query: TextQuery, limit: number, opts: RankTextOptions, complete: string | undefined): Ranked<T>[] {
  const statement = rankingStatement(db, index, query, opts, complete);
  if (!statement) return [];
  const boost = opts.boost ?? UNBOOSTED;
  const key = index.key;
  const order = (x: TextHit, y: TextHit) =>
    y.all_terms - x.all_terms || y.score - x.score || ((x[key] as string) < (y[key] as string) ? -1 : (x[key] as string) > (y[key] as string) ? 1 : 0);
  for (let read = limit + MARGIN; ; read *= 4) {
    const rows = db.all<Ranked<T>>(statement.sql, read, ...statement.params);
    for (const r of rows) r.score = r.lexical * boost.of(r);
    const top = [...rows].sort(order).slice(0, limit);
    // With every-term items first, an unread row can only compete with the kept rows of its own group.
    const last = rows.at(-1);
    const kth = top.at(-1);
    if (rows.length < read || (last !== undefined && kth !== undefined && (kth.all_terms > last.all_terms || kth.score > last.sql_score * (1 + SQL_DRIFT)))) {
      return top;
    }
  }
}
