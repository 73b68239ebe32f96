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
 * where a key or word shared by more than BLOCK_MAX entities (a trigram:
 * GRAM_BLOCK_MAX) is too common to say anything and makes no pairs. So each
 * entity meets a bounded number of others, however large the graph; a pair
 * whose names are less alike than MIN_NAME is dropped at once. Trigrams are
 * interned as numbers, so 100,000 names make little garbage.
 *
 * ## Score
 * The name score `s`: 0.9 for the same key, 0.8 for an acronym, else the
 * trigram Jaccard similarity of the names. Evidence then moves it: the same
 * entityType, shared observations and shared neighbours (each up to a cap,
 * together at most MAX_EVIDENCE) close part of the gap to 1,
 * `s + (1 - s) * evidence`; different types take a share off. The
 * EVIDENCE_CANDIDATES best candidates by name are the ones whose
 * observations and relations are read. "Apex Labs" and "Acme Labs" (Jaccard
 * about 0.23, 0.35 with the same type) stay below
 * DUPLICATE_DEFAULTS.minScore unless they also share observations or
 * neighbours.
 *
 * The time at 100,000 entities: `npm run bench:engine -- duplicates`.
 */
import type { Db } from "../storage/sql";
import { normalName, trigramText, trigrams, type NormalName } from "./names";

const DUPLICATE_DEFAULTS = { limit: 20, minScore: 0.6 } as const;
export const DUPLICATE_MAX_LIMIT = 100;
/** A key, trigram or word shared by more entities than this makes no candidate pairs. */
const BLOCK_MAX = 50;
/** A rare trigram shared by more entities than this makes no pairs (one block of n makes n(n-1)/2 pairs). */
const GRAM_BLOCK_MAX = 16;
/** Trigrams of each name that are looked up (its rarest). */
const RARE_TRIGRAMS = 4;
/** Candidates whose observations and relations are read, best by name first. */
const EVIDENCE_CANDIDATES = 2000;
/** Entities read per statement (a packed result stays well under 2 MB). */
const PAGE = 10_000;

/** Candidates whose names are less alike than this are dropped before any evidence is read ("Apex Labs" and "Acme Labs": 0.23). */
const MIN_NAME = 0.2;
/** Pair keys: the smaller id times this plus the larger (entity ids stay far below it). */
const PAIR_KEY = 2 ** 26;
const SAME_KEY = 0.9;
const ACRONYM = 0.8;
const SAME_TYPE = 0.15;
const PER_SHARED = 0.15;
const MAX_SHARED = 0.3;
const MAX_EVIDENCE = 0.6;
const OTHER_TYPE = 0.15;

interface DuplicatePair {
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
  /** The name's trigrams as interned numbers (`Grams`), ascending, each once. */
  grams: Int32Array;
}

/** Trigrams as small numbers, so names compare and block on integers: far less garbage at 100,000 names. */
class Grams {
  private readonly packed = new Map<number, number>();
  private readonly texts = new Map<string, number>();
  /** How many names have each trigram, by its number. */
  counts: number[] = [];

  /** The number of a trigram packed into a number (a Map of one key type stays fast). */
  private packedId(key: number): number {
    let id = this.packed.get(key);
    if (id === undefined) {
      id = this.counts.length;
      this.packed.set(key, id);
      this.counts.push(0);
    }
    return id;
  }

  private textId(key: string): number {
    let id = this.texts.get(key);
    if (id === undefined) {
      id = this.counts.length;
      this.texts.set(key, id);
      this.counts.push(0);
    }
    return id;
  }

  /** The trigrams of a name, ascending, each once; each counted once more. */
  of(n: NormalName): Int32Array {
    const text = trigramText(n);
    const out: number[] = [];
    if (/[\uD800-\uDFFF]/.test(text)) {
      for (const g of trigrams(n)) out.push(this.textId(g));
    } else {
      // Three UTF-16 units below 2048 pack into one number, so most trigrams need no string.
      for (let i = 0; i + 3 <= text.length; i++) {
        const a = text.charCodeAt(i);
        const b = text.charCodeAt(i + 1);
        const c = text.charCodeAt(i + 2);
        out.push(a < 2048 && b < 2048 && c < 2048 ? this.packedId(a * 4194304 + b * 2048 + c) : this.textId(text.substring(i, i + 3)));
      }
    }
    const sorted = Int32Array.from(out).sort();
    let k = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[k++] = sorted[i] as number;
    const distinct = sorted.subarray(0, k);
    for (const g of distinct) this.counts[g] = (this.counts[g] as number) + 1;
    return distinct;
  }
}

function readEntities(db: Db, entityType: string | undefined, grams: Grams): Named[] {
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
      out.push({ id, name, type, key: n.key, ...(n.acronym !== undefined && { acronym: n.acronym }), words: n.words, grams: grams.of(n) });
    }
    const last = rows[rows.length - 1];
    if (rows.length < PAGE || last === undefined) return out;
    after = last[0];
  }
}

/** Jaccard similarity of two ascending lists of distinct trigram numbers. */
function similarity(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let shared = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  const union = a.length + b.length - shared;
  return union === 0 ? 0 : shared / union;
}

/** Groups entities by each block key they have; blocks over BLOCK_MAX are dropped. */
function blocks<K>(entities: readonly Named[], keysOf: (e: Named) => Iterable<K>, max = BLOCK_MAX): Map<K, Named[]> {
  const out = new Map<K, Named[]>();
  const tooCommon = new Set<K>();
  for (const e of entities) {
    for (const k of keysOf(e)) {
      if (tooCommon.has(k)) continue;
      const list = out.get(k);
      if (!list) out.set(k, [e]);
      else if (list.length === max) {
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
  const j = similarity(x.grams, y.grams);
  return { name: j, reason: `similar names (trigram similarity ${j.toFixed(2)})` };
}

/** The pairs the blocks make whose name score is at least MIN_NAME, keyed by both ids in one number. */
function candidates(entities: readonly Named[], counts: readonly number[]): Map<number, number> {
  const out = new Map<number, number>();
  const add = (x: Named, y: Named) => {
    if (x.id === y.id) return;
    const [a, b] = x.id < y.id ? [x, y] : [y, x];
    const k = a.id * PAIR_KEY + b.id;
    if (out.has(k)) return;
    const s = nameScore(a, b).name;
    if (s >= MIN_NAME) out.set(k, s);
  };
  const pairsIn = (group: readonly Named[]) => {
    for (let i = 0; i < group.length; i++) for (let j = i + 1; j < group.length; j++) add(group[i] as Named, group[j] as Named);
  };
  for (const group of blocks(entities, (e) => (e.key === "" ? [] : [e.key])).values()) pairsIn(group);
  for (const group of blocks(entities, (e) => e.words.filter((w) => w.length >= 3)).values()) pairsIn(group);
  // Acronyms meet keys: "ibm" (International Business Machines) and "ibm" (IBM).
  const byKey = blocks(entities, (e) => (e.key === "" || e.words.length > 1 ? [] : [e.key]));
  for (const e of entities) if (e.acronym !== undefined) for (const other of byKey.get(e.acronym) ?? []) add(e, other);
  // Each name's RARE_TRIGRAMS rarest trigrams, by how many names have them.
  const rare = (e: Named): number[] => {
    const picked: number[] = [];
    for (const g of e.grams) {
      picked.push(g);
      // Insertion into a short list kept rarest first; the list never grows past RARE_TRIGRAMS.
      for (let i = picked.length - 1; i > 0 && (counts[picked[i] as number] as number) < (counts[picked[i - 1] as number] as number); i--) {
        [picked[i], picked[i - 1]] = [picked[i - 1] as number, picked[i] as number];
      }
      if (picked.length > RARE_TRIGRAMS) picked.pop();
    }
    return picked;
  };
  for (const group of blocks(entities, rare, GRAM_BLOCK_MAX).values()) pairsIn(group);
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
  const grams = new Grams();
  const entities = readEntities(db, opts.entityType, grams);
  const byId = new Map(entities.map((e) => [e.id, e]));
  const all = candidates(entities, grams.counts);
  const best = [...all.entries()]
    .sort((p, q) => q[1] - p[1] || p[0] - q[0])
    .slice(0, EVIDENCE_CANDIDATES)
    .map(([k]) => ({ x: byId.get(Math.floor(k / PAIR_KEY)) as Named, y: byId.get(k % PAIR_KEY) as Named }));
  const ids = [...new Set(best.flatMap((c) => [c.x.id, c.y.id]))];
  const observations = observationsOf(db, ids);
  const neighbours = neighboursOf(db, ids);
  const pairs: DuplicatePair[] = [];
  for (const { x, y } of best) {
    const { name, reason } = nameScore(x, y);
    const reasons = [reason];
    let evidence = 0;
    if (x.type === y.type) {
      evidence += SAME_TYPE;
      reasons.push(`same type (${x.type})`);
    }
    const obs = sharedCount(observations.get(x.id), observations.get(y.id));
    if (obs > 0) {
      evidence += Math.min(MAX_SHARED, obs * PER_SHARED);
      reasons.push(`${obs} shared observation${obs === 1 ? "" : "s"}`);
    }
    const near = neighbours.get(x.id);
    const common = sharedCount(near, neighbours.get(y.id));
    if (common > 0) {
      evidence += Math.min(MAX_SHARED, common * PER_SHARED);
      reasons.push(`${common} shared neighbour${common === 1 ? "" : "s"}`);
    }
    let score = name + (1 - name) * Math.min(MAX_EVIDENCE, evidence);
    if (x.type !== y.type) {
      score *= 1 - OTHER_TYPE;
      reasons.push(`different types (${x.type}, ${y.type})`);
    }
    if (near?.has(y.id)) reasons.push("related to each other");
    score = round(score);
    if (score >= minScore) pairs.push({ a: x.name, b: y.name, score, reasons });
  }
  pairs.sort((p, q) => q.score - p.score || p.a.localeCompare(q.a) || p.b.localeCompare(q.b));
  return { pairs: pairs.slice(0, limit), entities: entities.length, candidates: all.size };
}
