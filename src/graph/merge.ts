/**
 * merge_entities: folds source entities into a target as one recorded change
 * (co-visitation follows in src/covisit/merge.ts, called by MemoryContext in
 * the same change).
 *
 * ## What a merge does, per source
 * 1. The source's observations are added to the target (one already there is
 *    kept once), in the source's order; its superseded observations join the
 *    target's, with the times they held.
 * 2. Each of its relations is recreated with the target in the source's
 *    place; one the target already has is kept once, one that would join the
 *    target to itself is dropped.
 * 3. The source is deleted (deleteEntityRow: its relations, observations and
 *    aliases, each noted), and its name and former aliases become aliases of
 *    the target.
 * Then the target's statistics take the sources' in (`combineStats`): uses
 * and access counts add up, the latest access and the highest tier, base
 * relevance and mark win.
 *
 * ## Inverse op
 * `{kind:"entityStats", name, prior:{updatedAt, stats}}` is noted first for
 * the target, and for each source before it is deleted, so an undo puts
 * their statistics and update times back last, after the steps above are
 * undone (each by its own recorded op; restoring observations touches an
 * entity's update time): the context comes back exactly as it was.
 */
import { DomainError } from "../errors";
import type { InverseKind, Phrase, WriteScope } from "../history";
import { STATS_COLUMNS, itemKey, statsOf, statsPlaceholders, statsValues, type ItemStats, type StatsRow } from "../items";
import type { Db } from "../storage/sql";
import { aliasesOf, insertAlias, resolveAliases } from "./aliases";
import { idsByName } from "./rows";
import { deleteEntityRow, insertObservation, insertRelation, insertSuperseded, touchEntity } from "./writes";

type EntityStatsOp = { kind: "entityStats"; name: string; prior: { updatedAt: number; stats: ItemStats } };

export interface MergeResult {
  target: string;
  merged: string[];
  observationsAdded: number;
  relationsMoved: number;
  /** Relations not carried over: the target had them already, or they would join the target to itself. */
  relationsDropped: number;
  /** Every alias the target has now. */
  aliases: string[];
}

interface FullRow extends StatsRow, Record<string, SqlStorageValue> {
  id: number;
  name: string;
  updated_at: number;
}

const TIER_RANK: Readonly<Record<string, number>> = { short: 0, mid: 1, long: 2 };

function fullRow(db: Db, name: string): FullRow | undefined {
  return db.one<FullRow>(`SELECT id, name, updated_at, ${STATS_COLUMNS} FROM entities WHERE name = ?`, name);
}

/** Sets an entity's statistics and update time, noting the prior ones. */
function setStats(w: WriteScope, row: FullRow, stats: ItemStats, updatedAt: number): void {
  w.rec.note(itemKey.entity(row.name), { kind: "entityStats", name: row.name, prior: { updatedAt: row.updated_at, stats: statsOf(row) } } satisfies EntityStatsOp);
  w.db.run(
    `UPDATE entities SET (updated_at, ${STATS_COLUMNS}) = (?, ${statsPlaceholders()}) WHERE id = ?`,
    updatedAt,
    ...statsValues(stats, stats.category),
    row.id,
  );
}

/** The target's statistics with the sources' taken in. */
function combineStats(target: ItemStats, sources: readonly ItemStats[]): ItemStats {
  const out = { ...target };
  for (const s of sources) {
    out.accessCount += s.accessCount;
    out.uses += s.uses;
    if (s.lastAccessedAt !== null && (out.lastAccessedAt === null || s.lastAccessedAt > out.lastAccessedAt)) out.lastAccessedAt = s.lastAccessedAt;
    out.important = out.important || s.important;
    out.baseRelevance = Math.max(out.baseRelevance, s.baseRelevance);
    if ((TIER_RANK[s.tier] ?? 0) > (TIER_RANK[out.tier] ?? 0)) out.tier = s.tier;
  }
  return out;
}

/** Checks a merge's names; throws, naming each problem, before anything is written. */
function checkMerge(db: Db, target: string, sources: readonly string[]): void {
  if (sources.length === 0) throw new DomainError("Invalid", "sources: name at least one entity to merge into the target.");
  if (sources.includes(target)) throw new DomainError("Invalid", `sources: "${target}" is the target; an entity cannot be merged into itself. Nothing was merged.`);
  const ids = idsByName(db, [target, ...sources]);
  const missing = [target, ...new Set(sources)].filter((n) => !ids.has(n));
  if (missing.length === 0) return;
  const aliases = resolveAliases(db, missing);
  const said = missing.map((n) => (aliases.has(n) ? `${JSON.stringify(n)} (already merged into ${JSON.stringify(aliases.get(n))})` : JSON.stringify(n)));
  const which = ids.has(target) ? "sources" : "target";
  throw new DomainError("NotFound", `${which}: no entity named ${said.join(", ")}. Nothing was merged.`);
}

export function mergeEntities(w: WriteScope, target: string, sources: readonly string[]): MergeResult {
  checkMerge(w.db, target, sources);
  const names = [...new Set(sources)];
  const t = fullRow(w.db, target) as FullRow;
  const before = statsOf(t);
  const sourceStats: ItemStats[] = [];
  const result: MergeResult = { target, merged: names, observationsAdded: 0, relationsMoved: 0, relationsDropped: 0, aliases: [] };
  // Noted first: undone last (see the module note). The values are written at the end.
  w.rec.note(itemKey.entity(target), { kind: "entityStats", name: target, prior: { updatedAt: t.updated_at, stats: before } } satisfies EntityStatsOp);
  for (const name of names) {
    const s = fullRow(w.db, name) as FullRow;
    sourceStats.push(statsOf(s));
    // Undone after the source is restored with its observations (which touch its update time): it comes back exactly.
    w.rec.note(itemKey.entity(name), { kind: "entityStats", name, prior: { updatedAt: s.updated_at, stats: statsOf(s) } } satisfies EntityStatsOp);
    const moved = w.db.all<{ content: string; created_at: number; written_by: string | null }>(
      "SELECT content, created_at, written_by FROM observations WHERE entity_id = ? ORDER BY id",
      s.id,
    );
    // A moved observation keeps who wrote it and when.
    for (const o of moved) {
      if (insertObservation(w, t.id, target, o.content, { origin: { at: o.created_at, by: o.written_by } })) result.observationsAdded++;
    }
    const relations = w.db.all<{ from_id: number; to_id: number; from_name: string; to_name: string; relation_type: string }>(
      `SELECT r.from_id, r.to_id, f.name AS from_name, tt.name AS to_name, r.relation_type
       FROM relations r JOIN entities f ON f.id = r.from_id JOIN entities tt ON tt.id = r.to_id
       WHERE r.from_id = ?1 OR r.to_id = ?1 ORDER BY r.id`,
      s.id,
    );
    for (const r of relations) {
      const [fromId, from] = r.from_id === s.id ? [t.id, target] : [r.from_id, r.from_name];
      const [toId, to] = r.to_id === s.id ? [t.id, target] : [r.to_id, r.to_name];
      if (fromId !== toId && insertRelation(w, fromId, toId, { from, to, relationType: r.relation_type })) result.relationsMoved++;
      else result.relationsDropped++;
    }
    for (const o of w.db.all<{ id: number; content: string; created_at: number; superseded_at: number; written_by: string | null }>(
      "SELECT id, content, created_at, superseded_at, written_by FROM superseded_observations WHERE entity_id = ? ORDER BY id",
      s.id,
    )) {
      insertSuperseded(w, t.id, target, { id: o.id, content: o.content, createdAt: o.created_at, supersededAt: o.superseded_at, by: o.written_by });
    }
    const former = aliasesOf(w.db, s.id);
    deleteEntityRow(w, s.id);
    for (const alias of [name, ...former]) insertAlias(w, t.id, target, alias);
  }
  const combined = combineStats(before, sourceStats);
  w.db.run(`UPDATE entities SET (${STATS_COLUMNS}) = (${statsPlaceholders()}) WHERE id = ?`, ...statsValues(combined, combined.category), t.id);
  touchEntity(w, t.id);
  result.aliases = aliasesOf(w.db, t.id);
  return result;
}

const entityStats: InverseKind<EntityStatsOp> = {
  apply(w, op) {
    const row = fullRow(w.db, op.name);
    if (!row) throw new DomainError("Conflict", `entity "${op.name}" no longer exists, so its statistics cannot be restored; nothing was undone.`);
    setStats(w, row, op.prior.stats, op.prior.updatedAt);
  },
  describe: (op): Phrase => ({ action: "~", noun: "stats", name: op.name }),
};

export const mergeInverse = { entityStats };
