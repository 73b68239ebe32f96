/**
 * Bringing archived items back (the `restore` tool) and listing the archive.
 *
 * A restore is one recorded write: each item comes back through its domain's
 * recorded primitive with its old id, times, content and priority columns,
 * and its archive row goes (./archive.ts), so `undo` of the restore puts
 * things back exactly as they were.
 *
 * ## Rules
 * - An item whose key exists again (a new entity of that name, a file at
 *   that path, a document with that id) is a conflict: it stays archived and
 *   the report says so; nothing is overwritten.
 * - A file whose place is taken by a directory, or under a path that is a
 *   file now, is a conflict. A document whose parent is archived is a
 *   conflict (restore the parent first, or together: parents are restored
 *   first). The parent's [[archived:id]] marks become [[id]] links again; if
 *   it holds neither, the link is appended to the parent.
 * - A document whose parent no longer exists and is not archived comes back
 *   under the root (its [[id]] link appended to the root document) and is
 *   reported re-parented, so it is never stranded. Either way the tree's
 *   invariant holds: a document's parent links it, and only it.
 * - An entity's superseded observations and aliases come back with it. An
 *   alias whose name is taken now (an entity of that name, or another
 *   entity's alias) stays with its owner and is reported, not restored.
 * - Relations are never dropped (./relations.ts): they come back when both
 *   ends exist after the call, and otherwise stay in the archive, reported
 *   with the row that keeps them and what they wait for.
 * - File keys are normalised as every file tool does (`file:/notes/a.md` is
 *   `file:notes/a.md`); a key that is not a path is an error, nothing restored.
 * - Restoring counts as a use of the item: access_count and uses go up by
 *   one and last_accessed_at is now, so the next evaluation does not prune
 *   it straight away.
 */
import { chunksFor, placeholders, type Db } from "../storage/sql";
import { parseLinks, ROOT_ID, utf8Bytes } from "../documents/links";
import { getDocument, putDocument } from "../documents/rows";
import { ancestors } from "../files/path";
import { isDirectory, readFile, writeFile } from "../files/store";
import { idsByName } from "../graph/rows";
import { addAliasesUnlessTaken } from "../graph/aliases";
import { insertEntity, insertObservation, insertSuperseded } from "../graph/writes";
import type { RecordingScope, WriteScope } from "../history";
import type { ArchiveEntry } from "./archive";
import { LIMITS } from "../limits";
import { archivedLink, deleteArchive, getArchive, link, relink, writeStats, type ArchivedRelation, type DocPayload, type ItemStats, type Payload } from "./archive";
import { canonicalKey } from "../files/path";
import { keptRowOf, reconnect, retryKept, type DeferredRelation, type PendingRelation } from "./relations";
import { ACCESS_WEIGHTS, DEFAULT_MODEL, tierFor, type ModelOptions } from "./model";

export interface RestoreSelection {
  /** Item keys: the newest archive row of each. */
  items: readonly string[];
  /** Archive row ids. */
  ids: readonly number[];
}

export interface RestoreReport {
  restored: { id: number; item: string }[];
  /** Keys and `#id`s with no archive row. */
  notFound: string[];
  conflicts: { id: number; item: string; reason: string }[];
  /** Documents brought back under the root because their parent no longer exists. */
  reparented: { item: string; parent: string }[];
  /** Relations a relations row kept (an earlier restore) that came back now. */
  relationsRestored: string[];
  /** Relations that could not come back, each with the archive row keeping it. */
  relationsDeferred: DeferredRelation[];
  /** Aliases of restored entities not brought back because the name is taken now. */
  aliasesSkipped: { item: string; alias: string; takenBy: string }[];
}

interface ArchiveHead extends Record<string, SqlStorageValue> {
  id: number;
  item: string;
}

/** The archive rows a selection names (newest per key), and what it names that is not there. */
function select(db: Db, sel: RestoreSelection): { ids: number[]; notFound: string[] } {
  const ids = new Set<number>();
  const notFound: string[] = [];
  const keys = [...new Set(sel.items.map(canonicalKey))];
  const newest = new Map<string, number>();
  for (const chunk of chunksFor(keys)) {
    const rows = db.all<ArchiveHead>(`SELECT MAX(id) AS id, item FROM archive WHERE item IN (${placeholders(chunk.length)}) GROUP BY item`, ...chunk);
    for (const r of rows) newest.set(r.item, r.id);
  }
  for (const k of keys) {
    const id = newest.get(k);
    if (id === undefined) notFound.push(k);
    else ids.add(id);
  }
  const asked = [...new Set(sel.ids)];
  const present = new Set<number>();
  for (const chunk of chunksFor(asked)) {
    for (const r of db.all<{ id: number }>(`SELECT id FROM archive WHERE id IN (${placeholders(chunk.length)})`, ...chunk)) present.add(r.id);
  }
  for (const id of asked) {
    if (present.has(id)) ids.add(id);
    else notFound.push(`#${id}`);
  }
  return { ids: [...ids], notFound };
}

/** Restoring is a use: one more access, now (see the module note). */
function used(s: ItemStats, now: number, model: ModelOptions): ItemStats {
  const accessCount = s.accessCount + 1;
  const tier = tierFor({ important: s.important, clusterSize: s.clusterSize, accessCount, tier: s.tier }, model);
  return { ...s, accessCount, uses: s.uses + ACCESS_WEIGHTS.direct, lastAccessedAt: now, tier };
}

/** Why `p` cannot come back now, or undefined when it can. */
function blocker(db: Db, p: Payload): string | undefined {
  if (p.kind === "entity") {
    return idsByName(db, [p.name]).has(p.name) ? `an entity named ${JSON.stringify(p.name)} exists again; delete or rename it, then restore this row` : undefined;
  }
  if (p.kind === "file") {
    if (readFile(db, p.path)) return `a file exists again at ${p.path}; delete or rename it, then restore this row`;
    if (isDirectory(db, p.path)) return `${p.path} is a directory now`;
    const file = ancestors(p.path).find((dir) => readFile(db, dir));
    return file === undefined ? undefined : `${file} is a file now, so it cannot contain ${p.path}`;
  }
  if (p.kind === "relations") return undefined;
  if (getDocument(db, p.id)) return `a document "${p.id}" exists again (its parent linked [[${p.id}]] anew); its archived content stays here`;
  if (!getDocument(db, p.parent) && db.one("SELECT 1 AS archived FROM archive WHERE item = ?", `doc:${p.parent}`)) {
    return `its parent document "${p.parent}" is archived; restore doc:${p.parent} first, or in the same call`;
  }
  const home = homeOf(db, p);
  const parent = getDocument(db, home);
  if (!parent) return `neither its parent "${p.parent}" nor the root document exists`;
  const links = parseLinks(parent.content).ids;
  if (links.includes(p.id) || parent.content.includes(archivedLink(p.id))) return undefined;
  const which = home === p.parent ? `its parent "${home}"` : `its parent "${p.parent}" no longer exists, and the root`;
  if (links.length >= LIMITS.documentLinks) {
    return `${which} already links ${LIMITS.documentLinks} documents, so it cannot link [[${p.id}]] again`;
  }
  if (utf8Bytes(parent.content) + p.id.length + 8 > LIMITS.documentBytes) {
    return `${which} is too full to link [[${p.id}]] again (documents hold at most ${LIMITS.documentBytes} bytes)`;
  }
  return undefined;
}

/** Where document `p` goes back: its parent, or the root when the parent no longer exists (blocker() ruled out an archived one). */
const homeOf = (db: Db, p: DocPayload): string => (getDocument(db, p.parent) ? p.parent : ROOT_ID);

/** Puts `p` back through its domain; returns the relations to restore once every entity is back. */
function bring(w: WriteScope, p: Payload, skipped: RestoreReport["aliasesSkipped"]): ArchivedRelation[] {
  if (p.kind === "entity") {
    const id = insertEntity(w, p.name, p.entityType, {
      id: p.id,
      entityType: p.entityType,
      createdAt: p.createdAt,
      updatedAt: p.updatedAt,
      lastAccessedAt: p.stats.lastAccessedAt,
      accessCount: p.stats.accessCount,
    });
    if (id === undefined) throw new Error(`entity ${p.name} could not be inserted after the check`);
    // Not noted one by one, as create_entities: undoing the restore removes the entity with them.
    for (const o of p.observations) insertObservation(w, id, p.name, o.content, { prior: o, noted: false });
    for (const o of p.superseded ?? []) insertSuperseded(w, id, p.name, o);
    for (const t of addAliasesUnlessTaken(w, id, p.name, p.aliases ?? [])) skipped.push({ item: `entity:${p.name}`, ...t });
    writeStats(w.db, "entity", p.name, used(p.stats, w.now, w.model ?? DEFAULT_MODEL));
    return p.relations;
  }
  if (p.kind === "file") {
    const content = p.base64 ? Buffer.from(p.content, "base64").toString("utf8") : p.content;
    writeFile(w, p.path, content, { id: p.id, content, createdAt: p.createdAt, updatedAt: p.updatedAt });
    writeStats(w.db, "file", p.path, used(p.stats, w.now, w.model ?? DEFAULT_MODEL));
    return [];
  }
  if (p.kind === "relations") return [];
  const home = homeOf(w.db, p);
  relink(w, home, p.id, archivedLink(p.id), link(p.id));
  const parent = getDocument(w.db, home);
  if (parent && !parseLinks(parent.content).ids.includes(p.id)) {
    putDocument(w, home, `${parent.content.replace(/\n*$/, "")}\n\n${link(p.id)}\n`, parent.parent_id);
  }
  putDocument(w, p.id, p.content, home, { seq: p.seq, parent: home, content: p.content, createdAt: p.createdAt, updatedAt: p.updatedAt });
  writeStats(w.db, "doc", p.id, used(p.stats, w.now, w.model ?? DEFAULT_MODEL));
  return [];
}

// Relations rows last: the entities of this call are back by then.
const ORDER: Record<Payload["kind"], number> = { entity: 0, file: 1, doc: 2, relations: 3 };

/**
 * Restores what `sel` names as one recorded change (`change`: its number, when something came back);
 * conflicts and missing rows are reported, not thrown.
 */
export function restoreArchived(w: RecordingScope, sel: RestoreSelection): RestoreReport & { change?: number } {
  const { ids, notFound } = select(w.db, sel);
  const report: RestoreReport = { restored: [], notFound, conflicts: [], reparented: [], relationsRestored: [], relationsDeferred: [], aliasesSkipped: [] };
  const entries = ids.flatMap((id) => getArchive(w.db, id) ?? []);
  // Entities before the relations between them; documents newest-archived first, so a parent (pruned after its child) comes back first.
  entries.sort((a, b) => ORDER[a.payload.kind] - ORDER[b.payload.kind] || (a.payload.kind === "doc" ? b.id - a.id : a.id - b.id));
  const pending: PendingRelation[] = [];
  const entities: string[] = [];
  const kept: ArchiveEntry[] = [];
  for (const e of entries) {
    if (e.payload.kind === "relations") {
      kept.push(e);
      continue;
    }
    const why = blocker(w.db, e.payload);
    if (why) {
      report.conflicts.push({ id: e.id, item: e.item, reason: why });
      continue;
    }
    if (e.payload.kind === "doc" && homeOf(w.db, e.payload) !== e.payload.parent) report.reparented.push({ item: e.item, parent: e.payload.parent });
    const owner = e.payload.kind === "entity" ? e.payload.name : "";
    if (owner) entities.push(owner);
    pending.push(...bring(w, e.payload, report.aliasesSkipped).map((relation) => ({ owner, relation, priority: e.priority })));
    deleteArchive(w, e.id);
    report.restored.push({ id: e.id, item: e.item });
  }
  // Rows kept by earlier restores first (each entity that came back retries its own), then
  // this call's relations, whose leftovers may join those rows: nothing is reported twice.
  const relations = { restored: report.relationsRestored, deferred: report.relationsDeferred };
  for (const e of kept) if (retryKept(w, e.id, relations)) report.restored.push({ id: e.id, item: e.item });
  const asked = new Set(kept.map((e) => e.id));
  for (const owner of entities) {
    const id = keptRowOf(w.db, owner);
    if (id !== undefined && !asked.has(id)) retryKept(w, id, relations);
  }
  reconnect(w, pending, relations);
  // Something was written exactly when an item or a kept relation came back (deferrals go with a restored entity).
  return report.restored.length > 0 || report.relationsRestored.length > 0 ? { ...report, change: w.rec.seq() } : report;
}

export interface ArchiveListing {
  items: { id: number; item: string; priority: number; reason: string; archivedAt: number; bytes: number }[];
  /** Pass as `before` for the next (older) page. */
  next?: number;
  total: number;
}

/** Archive rows newest first, `limit` at a time, optionally only one kind; payloads are not read. */
export function listArchive(db: Db, opts: { before?: number; limit: number; kind?: string }): ArchiveListing {
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (opts.before !== undefined) {
    where.push("id < ?");
    params.push(opts.before);
  }
  if (opts.kind !== undefined) {
    // Keys of a kind share the prefix "<kind>:"; ';' is the character after ':'.
    where.push("item >= ? AND item < ?");
    params.push(`${opts.kind}:`, `${opts.kind};`);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
  const rows = db.all<{ id: number; item: string; priority: number; reason: string; archived_at: number; bytes: number }>(
    `SELECT id, item, priority, reason, archived_at, bytes FROM archive ${clause} ORDER BY id DESC LIMIT ?`,
    ...params,
    opts.limit + 1,
  );
  const total = db.one<{ n: number }>("SELECT COUNT(*) AS n FROM archive")?.n ?? 0;
  const page = rows.slice(0, opts.limit).map((r) => ({ id: r.id, item: r.item, priority: r.priority, reason: r.reason, archivedAt: r.archived_at, bytes: r.bytes }));
  const last = page[page.length - 1];
  return { items: page, total, ...(rows.length > opts.limit && last ? { next: last.id } : {}) };
}
