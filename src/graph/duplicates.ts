/**
 * find_duplicates: pairs of entities that likely name the same thing, scored
 * 0..1 without a model, each with the reasons for its score.
 *
 * ## Candidates (blocking, never all pairs)
 * Names are read once in id order and put in normal form (./names.ts). Two
 * entities become a candidate pair when they share
 * - their normal key ("Acme Corp", "ACME Corporation", "acme"),
 * - an acronym and a key ("International Business Machines", "IBM"),
 * - one of their RARE_TRIGRAMS rarest name trigrams, or
 * - a name word,
 * where a key, trigram or word shared by more than BLOCK_MAX entities
 * is too common to say anything and makes no pairs. So each entity meets a
 * bounded number of others, however large the graph.
 *
 * ## Score
 * The name score `s`: 0.9 for the same key, 0.8 for an acronym, else the
 * trigram Jaccard similarity of the names. Evidence then moves it: the same
 * entityType, shared observations and shared neighbours (each up to a cap,
 * together at most MAX_EVIDENCE) close part of the gap to 1,
 * `s + (1 - s) * evidence`; different types take a share off. The
 * EVIDENCE_CANDIDATES best candidates by name are the ones whose
 * observations and relations are read. "Apex Labs" and "Acme Labs" (Jaccard
 * about 0.23) stay far below DUPLICATE_DEFAULTS.minScore unless they also
 * share observations or neighbours.
 */
import type { Db } from "../storage/sql";
import { jaccard, normalName, trigrams } from "./names";

export const DUPLICATE_DEFAULTS = { limit: 20, minScore: 0.6 } as const;
export const DUPLICATE_MAX_LIMIT = 100;
/** A key, trigram or word shared by more entities than this makes no candidate pairs. */
export const BLOCK_MAX = 50;
/** Trigrams of each name that are looked up (its rarest). */
const RARE_TRIGRAMS = 4;
/** Candidates whose observations and relations are read, best by name first. */
export const EVIDENCE_CANDIDATES = 2000;
/** Entities read per statement (a packed result stays well under 2 MB). */
const PAGE = 10_000;

const SAME_KEY = 0.9;
const ACRONYM = 0.8;
const SAME_TYPE = 0.15;
const PER_SHARED = 0.15;
const MAX_SHARED = 0.3;
const MAX_EVIDENCE = 0.6;
const OTHER_TYPE = 0.15;

export interface DuplicatePair {
  a: string;
  b: string;
  score: number;
  reasons: string[];
}

export interface DuplicateOptions {
  entityType?: string;
  limit?: number;
  minScore?: number;
}

export interface DuplicateReport {
  pairs: DuplicatePair[];
  /** Entities read and candidate pairs scored, for the note and the bench. */
  entities: number;
  candidates: number;
}

interface Named {
  id: number;
  name: string;
  type: string;
  key: string;
  acronym?: string;
  words: string[];
  grams: Set<string>;
}

interface Candidate {
  x: Named;
  y: Named;
  name: number;
  reason: string;
}

function readEntities(db: Db, entityType: string | undefined): Named[] {
  const out: Named[] = [];
  let after = 0;
  for (;;) {
    const filter = entityType === undefined ? "" : "AND entity_type = ?2";
    const rows = db.tuples<[number, string, string]>(
      ["id", "name", "entity_type"],
      `SELECT id, name, entity_type FROM entities WHERE id > ?1 ${filter} ORDER BY id LIMIT ${PAGE}`,
      entityType === undefined ? [after] : [after, entityType],
      "id",
    );
    for (const [id, name, type] of rows) {
      const n = normalName(name);
      out.push({ id, name, type, key: n.key, ...(n.acronym !== undefined && { acronym: n.acronym }), words: n.words, grams: trigrams(n) });
    }
    const last = rows[rows.length - 1];
    if (rows.length < PAGE || last === undefined) return out;
    after = last[0];
  }
}

/** Groups entities by each block key they have; blocks over BLOCK_MAX are dropped. */
function blocks(entities: readonly Named[], keysOf: (e: Named) => Iterable<string>): Map<string, Named[]> {
  const out = new Map<string, Named[]>();
  const tooCommon = new Set<string>();
  for (const e of entities) {
    for (const k of keysOf(e)) {
      if (tooCommon.has(k)) continue;
      const list = out.get(k);
      if (!list) out.set(k, [e]);
      else if (list.length === BLOCK_MAX) {
        out.delete(k);
        tooCommon.add(k);
      } else list.push(e);
    }
  }
  return out;
}

function nameScore(x: Named, y: Named): { name: number; reason: string } {
  if (x.key !== "" && x.key === y.key) return { name: SAME_KEY, reason: "same name when normalised" };
  if ((x.acronym !== undefined && x.acronym === y.key) || (y.acronym !== undefined && y.acronym === x.key))
    return { name: ACRONYM, reason: "one name is the other's acronym" };
  const j = jaccard(x.grams, y.grams);
  return { name: j, reason: `similar names (trigram similarity ${j.toFixed(2)})` };
}

function candidates(entities: readonly Named[]): Map<string, Candidate> {
  const out = new Map<string, Candidate>();
  const add = (x: Named, y: Named) => {
    if (x.id === y.id) return;
    const [a, b] = x.id < y.id ? [x, y] : [y, x];
    const k = `${a.id},${b.id}`;
    if (!out.has(k)) out.set(k, { x: a, y: b, ...nameScore(a, b) });
  };
  const pairsIn = (group: readonly Named[]) => {
    for (let i = 0; i < group.length; i++) for (let j = i + 1; j < group.length; j++) add(group[i] as Named, group[j] as Named);
  };
  for (const group of blocks(entities, (e) => (e.key === "" ? [] : [e.key])).values()) pairsIn(group);
  for (const group of blocks(entities, (e) => e.words.filter((w) => w.length >= 3)).values()) pairsIn(group);
  // Acronyms meet keys: "ibm" (International Business Machines) and "ibm" (IBM).
  const byKey = blocks(entities, (e) => (e.key === "" || e.words.length > 1 ? [] : [e.key]));
  for (const e of entities) if (e.acronym !== undefined) for (const other of byKey.get(e.acronym) ?? []) add(e, other);
  // Each name's rarest trigrams, counted over the whole graph.
  const frequency = new Map<string, number>();
  for (const e of entities) for (const g of e.grams) frequency.set(g, (frequency.get(g) ?? 0) + 1);
  const rare = (e: Named) => [...e.grams].sort((p, q) => (frequency.get(p) ?? 0) - (frequency.get(q) ?? 0)).slice(0, RARE_TRIGRAMS);
  for (const group of blocks(entities, rare).values()) pairsIn(group);
  return out;
}

/** Lower-cased, trimmed observations of each entity, by id. */
function observationsOf(db: Db, ids: readonly number[]): Map<number, Set<string>> {
  const out = new Map<number, Set<string>>();
  for (const r of db.each<{ entity_id: number; content: string }>(
    "SELECT entity_id, substr(content, 1, 512) AS content FROM observations WHERE entity_id IN (SELECT value FROM json_each(?))",
    JSON.stringify(ids),
  )) {
    const set = out.get(r.entity_id) ?? new Set<string>();
    set.add(r.content.trim().toLowerCase());
    out.set(r.entity_id, set);
  }
  return out;
}

/** The entities related to each entity, either direction, by id. */
function neighboursOf(db: Db, ids: readonly number[]): Map<number, Set<number>> {
  const out = new Map<number, Set<number>>();
  const link = (a: number, b: number) => {
    const set = out.get(a) ?? new Set<number>();
    set.add(b);
    out.set(a, set);
  };
  const list = JSON.stringify(ids);
  for (const r of db.each<{ from_id: number; to_id: number }>(
    `SELECT from_id, to_id FROM relations WHERE from_id IN (SELECT value FROM json_each(?1))
     UNION SELECT from_id, to_id FROM relations WHERE to_id IN (SELECT value FROM json_each(?1))`,
    list,
  )) {
    link(r.from_id, r.to_id);
    link(r.to_id, r.from_id);
  }
  return out;
}

const sharedCount = <T>(a: ReadonlySet<T> | undefined, b: ReadonlySet<T> | undefined): number => {
  if (!a || !b) return 0;
  let n = 0;
  for (const v of a) if (b.has(v)) n++;
  return n;
};

const round = (x: number) => Math.round(x * 1000) / 1000;

export function findDuplicates(db: Db, opts: DuplicateOptions = {}): DuplicateReport {
  const limit = Math.min(opts.limit ?? DUPLICATE_DEFAULTS.limit, DUPLICATE_MAX_LIMIT);
  const minScore = opts.minScore ?? DUPLICATE_DEFAULTS.minScore;
  const entities = readEntities(db, opts.entityType);
  const all = [...candidates(entities).values()];
  const best = all.sort((p, q) => q.name - p.name || p.x.id - q.x.id || p.y.id - q.y.id).slice(0, EVIDENCE_CANDIDATES);
  const ids = [...new Set(best.flatMap((c) => [c.x.id, c.y.id]))];
  const observations = observationsOf(db, ids);
  const neighbours = neighboursOf(db, ids);
  const pairs: DuplicatePair[] = [];
  for (const c of best) {
    const reasons = [c.reason];
    let evidence = 0;
    if (c.x.type === c.y.type) {
      evidence += SAME_TYPE;
      reasons.push(`same type (${c.x.type})`);
    }
    const obs = sharedCount(observations.get(c.x.id), observations.get(c.y.id));
    if (obs > 0) {
      evidence += Math.min(MAX_SHARED, obs * PER_SHARED);
      reasons.push(`${obs} shared observation${obs === 1 ? "" : "s"}`);
    }
    const near = neighbours.get(c.x.id);
    const common = sharedCount(near, neighbours.get(c.y.id));
    if (common > 0) {
      evidence += Math.min(MAX_SHARED, common * PER_SHARED);
      reasons.push(`${common} shared neighbour${common === 1 ? "" : "s"}`);
    }
    let score = c.name + (1 - c.name) * Math.min(MAX_EVIDENCE, evidence);
    if (c.x.type !== c.y.type) {
      score *= 1 - OTHER_TYPE;
      reasons.push(`different types (${c.x.type}, ${c.y.type})`);
    }
    if (near?.has(c.y.id)) reasons.push("related to each other");
    score = round(score);
    if (score >= minScore) pairs.push({ a: c.x.name, b: c.y.name, score, reasons });
  }
  pairs.sort((p, q) => q.score - p.score || p.a.localeCompare(q.a) || p.b.localeCompare(q.b));
  return { pairs: pairs.slice(0, limit), entities: entities.length, candidates: all.length };
}
