/**
 * Relations on restore: a restore never drops one. A relation comes back
 * when both its ends exist; otherwise it stays in the archive, in exactly
 * one place, and the report says where (`archiveId`) and what it waits for:
 *
 * - its other end is archived as an entity: the relation moves to that
 *   end's archive row and comes back when that end is restored;
 * - its other end does not exist (deleted, renamed): the relation is kept
 *   in a relations row (`RelationsPayload`, key `entity:<restored end>`),
 *   one per entity, and comes back when that row is restored again after the
 *   other end exists (undo of its deletion, a new entity of that name).
 *   Restoring such a row while an end is still missing writes nothing;
 *   restoring the entity itself retries its row too.
 *
 * Every row change goes through putArchive/deleteArchive, so it is recorded
 * with the restore and undone with it.
 */
import type { Db } from "../storage/sql";
import { listNames } from "../errors";
import { idsByName, relationLabel } from "../graph/rows";
import { insertRelation } from "../graph/writes";
import type { WriteScope } from "../history";
import { deleteArchive, getArchive, putArchive, type ArchivedRelation, type ArchiveEntry, type RelationsPayload } from "./archive";

export interface DeferredRelation {
  relation: string;
  /** The missing end(s), as item keys. */
  waitsFor: string;
  /** The archive row that keeps it. */
  archiveId: number;
}

export interface RelationOutcome {
  /** Relations a relations row kept that are back now. */
  restored: string[];
  deferred: DeferredRelation[];
}

/** A relation of `owner` (an entity restored in this call) to bring back. */
export interface PendingRelation {
  owner: string;
  relation: ArchivedRelation;
  /** The priority of the row it came from (a relations row created for it keeps it). */
  priority: number;
}

const newestRow = (db: Db, name: string, kind: "entity" | "relations"): ArchiveEntry | undefined => {
  // The rows of one key are few; json_extract tells an entity's own row from its kept relations.
  const row = db.one<{ id: number }>(
    "SELECT id FROM archive WHERE item = ? AND json_extract(payload, '$.kind') = ? ORDER BY id DESC LIMIT 1",
    `entity:${name}`,
    kind,
  );
  return row && getArchive(db, row.id);
};

/** The relations row keeping relations of entity `name`, if any. */
export const keptRowOf = (db: Db, name: string): number | undefined => newestRow(db, name, "relations")?.id;

const reasonFor = (relations: readonly ArchivedRelation[]) => `relations kept until their other end exists again: ${listNames(relations.map(relationLabel), 5)}`;

const missingEnds = (r: ArchivedRelation, ids: Map<string, number>) =>
  [r.from, r.to].filter((n, i, all) => !ids.has(n) && all.indexOf(n) === i).map((n) => `entity:${n}`);

/** Brings back the relations of entities restored in this call; keeps the rest (see the module note). */
export function reconnect(w: WriteScope, pending: readonly PendingRelation[], out: RelationOutcome): void {
  const ids = idsByName(
    w.db,
    pending.flatMap((p) => [p.relation.from, p.relation.to]),
  );
  const kept = new Map<string, { relations: ArchivedRelation[]; priority: number }>();
  for (const { owner, relation: r, priority } of pending) {
    const from = ids.get(r.from);
    const to = ids.get(r.to);
    if (from !== undefined && to !== undefined) {
      insertRelation(w, from, to, r, { id: r.id, createdAt: r.createdAt });
      continue;
    }
    const missing = from === undefined ? r.from : r.to;
    const holder = (from === undefined) !== (to === undefined) ? newestRow(w.db, missing, "entity") : undefined;
    if (holder?.payload.kind === "entity") {
      putArchive(w, { ...holder, payload: { ...holder.payload, relations: [...holder.payload.relations, r] } });
      out.deferred.push({ relation: relationLabel(r), waitsFor: `entity:${missing}`, archiveId: holder.id });
      continue;
    }
    const k = kept.get(owner) ?? { relations: [], priority };
    k.relations.push(r);
    kept.set(owner, k);
  }
  for (const [owner, k] of kept) {
    const row = newestRow(w.db, owner, "relations");
    const relations = [...(row?.payload.kind === "relations" ? row.payload.relations : []), ...k.relations];
    const payload: RelationsPayload = { kind: "relations", name: owner, relations };
    const archiveId = putArchive(w, {
      id: row?.id ?? null,
      item: `entity:${owner}`,
      payload,
      priority: row?.priority ?? k.priority,
      reason: reasonFor(relations),
      archivedAt: row?.archivedAt ?? w.now,
    });
    for (const r of k.relations) out.deferred.push({ relation: relationLabel(r), waitsFor: missingEnds(r, ids).join(" and "), archiveId });
  }
}

/**
 * Restores what relations row `id` can: the relations whose ends both exist
 * come back; the rest stay in the row. True when the row is used up.
 */
export function retryKept(w: WriteScope, id: number, out: RelationOutcome): boolean {
  const entry = getArchive(w.db, id);
  if (entry?.payload.kind !== "relations") return false;
  const payload = entry.payload;
  const ids = idsByName(
    w.db,
    payload.relations.flatMap((r) => [r.from, r.to]),
  );
  const back = payload.relations.filter((r) => ids.has(r.from) && ids.has(r.to));
  const still = payload.relations.filter((r) => !(ids.has(r.from) && ids.has(r.to)));
  for (const r of still) out.deferred.push({ relation: relationLabel(r), waitsFor: missingEnds(r, ids).join(" and "), archiveId: id });
  if (back.length === 0) return false;
  for (const r of back) {
    insertRelation(w, ids.get(r.from) as number, ids.get(r.to) as number, r, { id: r.id, createdAt: r.createdAt });
    out.restored.push(relationLabel(r));
  }
  if (still.length === 0) {
    deleteArchive(w, id);
    return true;
  }
  putArchive(w, { ...entry, payload: { ...payload, relations: still }, reason: reasonFor(still) });
  return false;
}
