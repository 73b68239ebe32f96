/**
 * The context's briefing (memory://brief, the `brief` prompt): the items
 * marked important, then the most used, then the most recently used or
 * written, one line each, within a token budget that is never exceeded.
 *
 * ## Budget
 * Tokens are estimated as characters / 4 rounded up (`estimateTokens`), the
 * usual rule of thumb for English text and JSON; the whole text (header,
 * lines and the closing count of what was left out) is held to it. A line
 * that does not fit ends the brief; nothing is cut mid-line.
 *
 * ## Cost
 * Each section reads at most SECTION_ROWS rows per kind: the marked ones
 * through the partial indexes of migrations/0012, the most used and most
 * recent as a bounded top-N sort. Reading the brief is not an access: it
 * shows what is already used, and counting it would feed itself.
 */
import { ITEM_TABLES, type ItemKind } from "../items";
import type { Db } from "../storage/sql";

export const estimateTokens = (text: string): number => Math.ceil(text.length / 4);

/** The default budget of memory://brief (tokens, see `estimateTokens`). */
export const BRIEF_TOKENS = 1500;
/** The brief prompt's budget range: a client that injects the brief on its own (a session-start hook) may ask for more. */
export const BRIEF_BUDGET = { min: 200, max: 3000 } as const;
/** Rows read per section and kind: more than a brief of `BRIEF_BUDGET.max` tokens can show. */
const SECTION_ROWS = 80;
/** Characters of one observation, of one line. */
const OBSERVATION_CHARS = 160;
const LINE_CHARS = 400;
const OBSERVATIONS_PER_LINE = 3;

export interface BriefOptions {
  /** The most tokens the text may take. */
  maxTokens: number;
  /** The kinds to show (the connection's toolsets). */
  kinds: readonly ItemKind[];
  /** The first line (e.g. which context this is); counts against the budget. */
  header: string;
}

export interface Brief {
  text: string;
  tokens: number;
  /** Items shown. */
  shown: number;
  /** Items of the shown kinds left out (for the budget, or beyond the rows read). */
  omitted: number;
}

type Section = "important" | "used" | "recent";

const SECTIONS: readonly { section: Section; title: string; where: string; order: string }[] = [
  { section: "important", title: "Marked important", where: "important = 1", order: "uses DESC" },
  { section: "used", title: "Most used", where: "important = 0 AND uses > 0", order: "uses DESC" },
  { section: "recent", title: "Most recent", where: "important = 0", order: "COALESCE(last_accessed_at, updated_at) DESC" },
];

interface Candidate {
  kind: ItemKind;
  key: string;
  line: string;
  rank: number;
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

function entityLine(db: Db, id: number, name: string, type: string): string {
  const obs = db
    .all<{ content: string }>("SELECT content FROM observations WHERE entity_id = ? ORDER BY id DESC LIMIT ?", id, OBSERVATIONS_PER_LINE)
    .map((o) => clip(oneLine(o.content), OBSERVATION_CHARS));
  return clip(`- ${JSON.stringify(name)} (${type})${obs.length ? `: ${obs.join(" | ")}` : ""}`, LINE_CHARS);
}

function candidates(db: Db, kind: ItemKind, where: string, order: string): Candidate[] {
  const t = ITEM_TABLES[kind];
  const limit = `ORDER BY ${order}, ${t.keyColumn} LIMIT ${SECTION_ROWS}`;
  if (kind === "entity") {
    return db
      .all<{ id: number; name: string; entity_type: string; uses: number }>(`SELECT id, name, entity_type, uses FROM entities WHERE ${where} ${limit}`)
      .map((r, i) => ({ kind, key: `entity:${r.name}`, line: entityLine(db, r.id, r.name, r.entity_type), rank: i }));
  }
  if (kind === "file") {
    return db
      .all<{ path: string; head: string; size: number }>(`SELECT path, substr(content, 1, 200) AS head, length(content) AS size FROM files WHERE ${where} ${limit}`)
      .map((r, i) => ({ kind, key: `file:${r.path}`, line: clip(`- file ${r.path} (${r.size} chars): ${oneLine(r.head)}`, LINE_CHARS), rank: i }));
  }
  return db
    .all<{ id: string; title: string }>(`SELECT id, title FROM documents WHERE ${where} ${limit}`)
    .map((r, i) => ({ kind, key: `doc:${r.id}`, line: clip(`- doc ${r.id}: ${oneLine(r.title)}`, LINE_CHARS), rank: i }));
}

/** The brief of one context: see the module comment. */
export function brief(db: Db, opts: BriefOptions): Brief {
  const seen = new Set<string>();
  const sections: { title: string; lines: string[] }[] = [];
  for (const s of SECTIONS) {
    // Kinds interleave by rank, so one kind's many rows do not crowd out the others.
    const all = opts.kinds.flatMap((k) => candidates(db, k, s.where, s.order)).sort((a, b) => a.rank - b.rank);
    const lines: string[] = [];
    for (const candidate of all) {
      if (seen.has(candidate.key)) continue;
      seen.add(candidate.key);
      lines.push(candidate.line);
    }
    if (lines.length) sections.push({ title: s.title, lines });
  }
  const total = opts.kinds.reduce((n, k) => n + (db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${ITEM_TABLES[k].table}`)?.n ?? 0), 0);
  const budget = opts.maxTokens * 4;
  const footer = (n: number) => `\n(${n} more not shown: search or list to find them)`;
  let text = opts.header;
  let shown = 0;
  if (total === 0) text += "\nNothing is stored yet.";
  outer: for (const s of sections) {
    const heading = `\n## ${s.title}`;
    let first = true;
    for (const line of s.lines) {
      const add = `${first ? heading : ""}\n${line}`;
      const rest = total - shown - 1;
      if (text.length + add.length + (rest > 0 ? footer(rest).length : 0) > budget) break outer;
      text += add;
      first = false;
      shown++;
    }
  }
  if (shown < total) text += footer(total - shown);
  // The header alone may exceed a tiny budget: cut it rather than break the promise.
  if (text.length > budget) text = text.slice(0, budget);
  return { text, tokens: estimateTokens(text), shown, omitted: total - shown };
}
