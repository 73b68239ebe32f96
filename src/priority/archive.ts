/**
 * The archive: where the evaluation moves pruned items, never a silent
 * delete. One row per pruned item (`archive`, migrations/0006_priority.sql)
 * whose payload holds everything needed to bring it back whole:
 *
 *   entity  its row, observations and relations (each with the other end's
 *           name; a relation lives in exactly one place: the graph, the
 *           archive row of the end pruned first, or a relations row), its
 *           superseded observations and its aliases (rows archived before
 *           these were kept have neither)
 *   relations  relations of an entity a restore brought back whose other
 *           end did not exist then, keyed `entity:<name>`: kept until it
 *           does, never dropped (./relations.ts)
 *   file    its row and content (base64 when plain JSON would be too big)
 *   doc     its row, content and parent (only leaf documents are pruned,
 *           never the root: ./scan.ts). Its parent's [[id]] links become
 *           [[archived:id]] (plain text, not a link), so the tree stays whole
 *           (links are exactly children) and a reader sees what is archived;
 *           restore turns them back into links.
 *   and the item's priority columns (access statistics, category, tier...)
 *
 * ## Removal goes through the domains
 * Pruning deletes through each domain's recorded primitive (graph/writes,
 * files/store, documents/rows), so history records it like any delete, the
 * search index follows at the end of the transaction, and co-visitation
 * forgets the item (`w.items.removed`).
 *
 * ## History (op kind "archive")
 * Archive rows change only through `putArchive` / `deleteArchive`, which note
 * `{kind:"archive", id, item, prior}` (prior null: the row was created) under
 * the item's own key. So undoing a pruning brings the item back AND removes
 * its archive row; undoing a restore removes the item AND puts the row back:
 * the item is in exactly one place, the graph or the archive, and undo and
 * restore can never duplicate it.
 *
 * ## Limits
 * A payload stays under ARCHIVE_MAX_BYTES (the row and the op recording it
 * must fit a 2 MB row); an item too large for that is kept and reported.
 */
import type { Db } from "../storage/sql";
import { DomainError } from "../errors";
import { utf8Bytes } from "../documents/links";
import { deleteDocument, getDocument, putDocument } from "../documents/rows";
import { LIMITS } from "../limits";
import { deleteFile } from "../files/store";
import { deleteEntityRow } from "../graph/writes";
import type { InverseKind, InverseKinds, Phrase, WriteScope } from "../history";
import { ITEM_TABLES, STATS_COLUMNS, statsOf, statsPlaceholders, statsValues, type ItemKind, type ItemStats, type StatsRow } from "../items";

export type { ItemStats };

/** Bytes of payload JSON an archive row holds at most. */
export const ARCHIVE_MAX_BYTES = 1536 * 1024;
/** Observations plus relations an archived entity may carry (a bigger one is kept, not pruned). */
export const ARCHIVE_MAX_ROWS = 5000;

export type ArchivedRelation = { id: number; from: string; to: string; relationType: string; createdAt: number };
type EntityPayload = {
  kind: "entity";
  id: number;
  name: string;
  entityType: string;
  createdAt: number;
  updatedAt: number;
  stats: ItemStats;
  /** `by`: who wrote it (its provenance), when known. */
  observations: { id: number; content: string; createdAt: number; by?: string }[];
  relations: ArchivedRelation[];
  /** Observations it had replaced (update_observation), oldest first; absent in rows archived before they were kept. */
  superseded?: { id: number; content: string; createdAt: number; supersededAt: number; by?: string }[];
  /** Names merged into it (merge_entities), oldest first; absent likewise. */
  aliases?: { alias: string; createdAt: number }[];
};
type FilePayload = { kind: "file"; id: number; path: string; content: string; base64?: true; createdAt: number; updatedAt: number; stats: ItemStats };
export type DocPayload = { kind: "doc"; seq: number; id: string; parent: string; content: string; createdAt: number; updatedAt: number; stats: ItemStats };
/**
 * Relations of entity `name` that a restore could not bring back because
 * their other end did not exist (nor was archived): kept, under the key
 * `entity:<name>`, until a later restore finds both ends (./relations.ts).
 */
export type RelationsPayload = { kind: "relations"; name: string; relations: ArchivedRelation[] };
export type Payload = EntityPayload | FilePayload | DocPayload | RelationsPayload;

/** An archive row as ops and callers see it. */
export type ArchiveEntry = { id: number; item: string; payload: Payload; priority: number; reason: string; archivedAt: number };
export type ArchiveOp = { kind: "archive"; id: number; item: string; prior: ArchiveEntry | null; deleted?: true };

interface ArchiveRow extends Record<string, SqlStorageValue> {
  id: number;
  item: string;
  payload: string;
  priority: number;
  reason: string;
  archived_at: number;
}

const entryOf = (r: ArchiveRow): ArchiveEntry => ({
  id: r.id,
  item: r.item,
  payload: JSON.parse(r.payload) as Payload,
  priority: r.priority,
  reason: r.reason,
  archivedAt: r.archived_at,
});

const note = (w: WriteScope, op: ArchiveOp) => w.rec.note(op.item, op);

export function getArchive(db: Db, id: number): ArchiveEntry | undefined {
  const r = db.one<ArchiveRow>("SELECT * FROM archive WHERE id = ?", id);
  return r && entryOf(r);
}

/** Writes an archive row (a new one when `entry.id` is null), noting what was there before. Returns its id. */
export function putArchive(w: WriteScope, entry: Omit<ArchiveEntry, "id"> & { id: number | null }): number {
  const prior = entry.id === null ? undefined : getArchive(w.db, entry.id);
  const payload = JSON.stringify(entry.payload);
  // bytes: the payload's UTF-8 size, kept so the archive's size is a SUM of a column (migrations/0007).
  const row = w.db.one<{ id: number }>(
    `INSERT INTO archive (id, item, payload, bytes, priority, reason, archived_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET item = excluded.item, payload = excluded.payload, bytes = excluded.bytes,
       priority = excluded.priority, reason = excluded.reason, archived_at = excluded.archived_at RETURNING id`,
    entry.id,
    entry.item,
    payload,
    Buffer.byteLength(payload),
    entry.priority,
    entry.reason,
    entry.archivedAt,
  );
  if (!row) throw new Error("INSERT INTO archive returned no id");
  note(w, { kind: "archive", id: row.id, item: entry.item, prior: prior ?? null });
  return row.id;
}

/** Deletes archive row `id`, noting it; returns what it held. */
export function deleteArchive(w: WriteScope, id: number): ArchiveEntry | undefined {
  const prior = getArchive(w.db, id);
  if (!prior) return undefined;
  w.db.run("DELETE FROM archive WHERE id = ?", id);
  note(w, { kind: "archive", id, item: prior.item, prior, deleted: true });
  return prior;
}

const archive: InverseKind<ArchiveOp> = {
  apply(w, op) {
    if (op.prior === null) {
      deleteArchive(w, op.id);
      return;
    }
    const current = getArchive(w.db, op.id);
    if (current && current.item !== op.item) {
      throw new DomainError("Conflict", `archive row #${op.id} now holds ${current.item}, not ${op.item}; nothing was undone.`);
    }
    putArchive(w, op.prior);
  },
  describe: (op): Phrase => {
    return { action: op.deleted ? "-" : op.prior === null ? "+" : "~", noun: "archive", name: op.item };
  },
};

export const archiveInverses: InverseKinds<ArchiveOp> = { archive };

type Row<T> = T & StatsRow & Record<string, SqlStorageValue>;

function entityPayload(db: Db, name: string): EntityPayload | "tooLarge" | undefined {
  const e = db.one<Row<{ id: number; name: string; entity_type: string; created_at: number; updated_at: number }>>(
    `SELECT id, name, entity_type, created_at, updated_at, ${STATS_COLUMNS} FROM entities WHERE name = ?`,
    name,
  );
  if (!e) return undefined;
  const n = db.one<{ n: number }>(
    `SELECT (SELECT COUNT(*) FROM observations WHERE entity_id = ?1)
          + (SELECT COUNT(*) FROM superseded_observations WHERE entity_id = ?1)
          + (SELECT COUNT(*) FROM relations WHERE from_id = ?1 OR to_id = ?1) AS n`,
    e.id,
  );
  if ((n?.n ?? 0) > ARCHIVE_MAX_ROWS) return "tooLarge";
  const observations = db
    .all<{ id: number; content: string; created_at: number; written_by: string | null }>(
      "SELECT id, content, created_at, written_by FROM observations WHERE entity_id = ? ORDER BY id",
      e.id,
    )
    .map((o) => ({ id: o.id, content: o.content, createdAt: o.created_at, ...(o.written_by !== null ? { by: o.written_by } : {}) }));
  const relations = db
    .all<{ id: number; f: string; t: string; relation_type: string; created_at: number }>(
      `SELECT r.id, f.name AS f, t.name AS t, r.relation_type, r.created_at
       FROM relations r JOIN entities f ON f.id = r.from_id JOIN entities t ON t.id = r.to_id
       WHERE r.from_id = ?1 OR r.to_id = ?1 ORDER BY r.id`,
      e.id,
    )
    .map((r) => ({ id: r.id, from: r.f, to: r.t, relationType: r.relation_type, createdAt: r.created_at }));
  const superseded = db
    .all<{ id: number; content: string; created_at: number; superseded_at: number; written_by: string | null }>(
      "SELECT id, content, created_at, superseded_at, written_by FROM superseded_observations WHERE entity_id = ? ORDER BY id",
      e.id,
    )
    .map((o) => ({ id: o.id, content: o.content, createdAt: o.created_at, supersededAt: o.superseded_at, ...(o.written_by !== null ? { by: o.written_by } : {}) }));
  const aliases = db
    .all<{ alias: string; created_at: number }>("SELECT alias, created_at FROM entity_aliases WHERE entity_id = ? ORDER BY created_at, alias", e.id)
    .map((a) => ({ alias: a.alias, createdAt: a.created_at }));
  return {
    kind: "entity",
    id: e.id,
    name: e.name,
    entityType: e.entity_type,
    createdAt: e.created_at,
    updatedAt: e.updated_at,
    stats: statsOf(e),
    observations,
    relations,
    ...(superseded.length > 0 && { superseded }),
    ...(aliases.length > 0 && { aliases }),
  };
}

function filePayload(db: Db, path: string): FilePayload | undefined {
  const f = db.one<Row<{ id: number; content: string; created_at: number; updated_at: number }>>(
    `SELECT id, content, created_at, updated_at, ${STATS_COLUMNS} FROM files WHERE path = ?`,
    path,
  );
  if (!f) return undefined;
  const base = { kind: "file" as const, id: f.id, path, createdAt: f.created_at, updatedAt: f.updated_at, stats: statsOf(f) };
  // Escaping can grow text six-fold as JSON; such content is kept in base64 (4/3 of its bytes), as history does.
  if (Buffer.byteLength(JSON.stringify(f.content)) <= ARCHIVE_MAX_BYTES - 4096) return { ...base, content: f.content };
  return { ...base, content: Buffer.from(f.content, "utf8").toString("base64"), base64: true };
}

function docPayload(db: Db, id: string): DocPayload | undefined {
  const d = db.one<Row<{ seq: number; parent_id: string | null; content: string; created_at: number; updated_at: number; children: number }>>(
    `SELECT seq, parent_id, content, created_at, updated_at, ${STATS_COLUMNS},
            EXISTS (SELECT 1 FROM documents c WHERE c.parent_id = documents.id) AS children
     FROM documents WHERE id = ?`,
    id,
  );
  // The root and documents with children are never pruned (their children would be orphaned).
  if (!d || d.parent_id === null || d.children === 1) return undefined;
  return { kind: "doc", seq: d.seq, id, parent: d.parent_id, content: d.content, createdAt: d.created_at, updatedAt: d.updated_at, stats: statsOf(d) };
}

export type PruneResult = "archived" | "tooLarge" | "notPrunable";

export const link = (id: string) => `[[${id}]]`;
export const archivedLink = (id: string) => `[[archived:${id}]]`;

/**
 * Rewrites the links to `_id` in its parent (`from` → `to`), keeping the
 * parent's times: a recorded change of the parent, undone with the rest.
 * False when the parent is gone or would grow past a document's limit.
 */
export function relink(w: WriteScope, parentId: string, _id: string, from: string, to: string): boolean {
  const parent = getDocument(w.db, parentId);
  if (!parent) return false;
  const content = parent.content.split(from).join(to);
  if (content === parent.content) return true;
  if (utf8Bytes(content) > LIMITS.documentBytes) return false;
  putDocument(w, parentId, content, parent.parent_id, {
    seq: parent.seq,
    parent: parent.parent_id,
    content,
    createdAt: parent.created_at,
    updatedAt: parent.updated_at,
  });
  return true;
}

/**
 * Moves item `kind:name` to the archive with the priority it had and why:
 * the payload first, then the removal through its domain, in the caller's
 * recorded transaction. Marked items are refused here too, whatever the caller checked.
 */
export function pruneItem(w: WriteScope, kind: ItemKind, name: string, priority: number, reason: string): PruneResult {
  const payload = kind === "entity" ? entityPayload(w.db, name) : kind === "file" ? filePayload(w.db, name) : docPayload(w.db, name);
  if (payload === "tooLarge") return "tooLarge";
  if (payload === undefined || payload.stats.important) return "notPrunable";
  if (Buffer.byteLength(JSON.stringify(payload)) > ARCHIVE_MAX_BYTES) return "tooLarge";
  const item = `${kind}:${name}`;
  if (payload.kind === "doc" && !relink(w, payload.parent, payload.id, link(payload.id), archivedLink(payload.id))) return "tooLarge";
  if (payload.kind === "entity") deleteEntityRow(w, payload.id);
  else if (payload.kind === "file") deleteFile(w, payload.path);
  else deleteDocument(w, payload.id);
  w.items.removed([item]);
  putArchive(w, { id: null, item, payload, priority, reason, archivedAt: w.now });
  return "archived";
}

/** Writes an item's priority columns (a restored item gets its statistics back). */
export function writeStats(db: Db, kind: ItemKind, name: string, s: ItemStats): void {
  const t = ITEM_TABLES[kind];
  db.run(`UPDATE ${t.table} SET (${STATS_COLUMNS}) = (${statsPlaceholders()}) WHERE ${t.keyColumn} = ?`, ...statsValues(s, s.category), name);
}
