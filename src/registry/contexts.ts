/**
 * Context rows and each caller's active context.
 *
 * A context is registered while it has a row with `removed_at` NULL. Removing
 * only sets `removed_at` (the MemoryContext keeps its data); registering the
 * name again revives the row. A purge deletes the row after the data is wiped.
 */
import { DomainError } from "../errors";
import { DEFAULT_CONTEXT } from "../limits";
import type { Db } from "../storage/sql";
import type { ActiveContext, ContextInfo, ContextPatch, Capacity, NewContext } from "./types";

type ContextRow = {
  name: string;
  description: string;
  read_only: number;
  capacity: string | null;
  created_at: number;
  created_by: string;
  removed_at: number | null;
};

const info = (r: ContextRow): ContextInfo => ({
  name: r.name,
  description: r.description,
  readOnly: r.read_only === 1,
  capacity: r.capacity === null ? null : (JSON.parse(r.capacity) as Capacity),
  createdAt: r.created_at,
  createdBy: r.created_by,
  removedAt: r.removed_at,
});

const capacityText = (c: Capacity | null | undefined) => (c == null ? null : JSON.stringify(c));

/** The row for `name`, registered or removed. */
export function findContext(db: Db, name: string): ContextInfo | undefined {
  const row = db.one<ContextRow>("SELECT * FROM contexts WHERE name = ?", name);
  return row && info(row);
}

/** The one message for a context that is not registered: never was (add_context creates it), or was removed (add_context brings its data back). */
export const noSuchContext = (name: string, removed = false) =>
  `Context ${JSON.stringify(name)} ${removed ? "was removed" : "does not exist"}. list_contexts shows the contexts you can use; add_context ${removed ? "brings it back with its data" : "creates one"}.`;

/** The registered context `name`, or NotFound. */
export function registeredContext(db: Db, name: string): ContextInfo {
  const c = findContext(db, name);
  if (!c || c.removedAt !== null) throw new DomainError("NotFound", noSuchContext(name, c !== undefined));
  return c;
}

export function listContexts(db: Db, includeRemoved: boolean): ContextInfo[] {
  const where = includeRemoved ? "" : "WHERE removed_at IS NULL";
  return db.all<ContextRow>(`SELECT * FROM contexts ${where} ORDER BY name`).map(info);
}

/**
 * Registers `c`: a new row, or the revival of a removed one (its data is
 * still there). Conflict when it is already registered.
 */
export function registerContext(db: Db, c: NewContext, actor: string, now: number): ContextInfo & { revived: boolean } {
  const existing = findContext(db, c.name);
  if (existing && existing.removedAt === null) {
    throw new DomainError("Conflict", `Context ${JSON.stringify(c.name)} already exists.`);
  }
  // A revived context keeps its settings unless new ones are given: a read-only archive stays read-only.
  const description = c.description ?? existing?.description ?? "";
  const readOnly = c.readOnly ?? existing?.readOnly ?? false;
  const capacity = c.capacity !== undefined ? c.capacity : (existing?.capacity ?? null);
  db.run(
    `INSERT INTO contexts (name, description, read_only, capacity, created_at, created_by, removed_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL)
     ON CONFLICT (name) DO UPDATE SET description = excluded.description, read_only = excluded.read_only,
       capacity = excluded.capacity, created_at = excluded.created_at, created_by = excluded.created_by, removed_at = NULL`,
    c.name,
    description,
    readOnly ? 1 : 0,
    capacityText(capacity),
    now,
    actor,
  );
  return { ...registeredContext(db, c.name), revived: existing !== undefined };
}

export function updateContext(db: Db, name: string, patch: ContextPatch): ContextInfo {
  const c = registeredContext(db, name);
  db.run(
    "UPDATE contexts SET description = ?, read_only = ?, capacity = ? WHERE name = ?",
    patch.description ?? c.description,
    (patch.readOnly ?? c.readOnly) ? 1 : 0,
    patch.capacity !== undefined ? capacityText(patch.capacity) : capacityText(c.capacity),
    name,
  );
  return registeredContext(db, name);
}

export const CANNOT_REMOVE_DEFAULT = `The "${DEFAULT_CONTEXT}" context cannot be removed: it is where calls fall back to.`;

export function removeContext(db: Db, name: string, now: number): ContextInfo {
  if (name === DEFAULT_CONTEXT) throw new DomainError("Invalid", CANNOT_REMOVE_DEFAULT);
  registeredContext(db, name);
  db.run("UPDATE contexts SET removed_at = ? WHERE name = ?", now, name);
  return findContext(db, name) as ContextInfo;
}

/** Forgets `name` entirely (after its data was purged). */
export function deleteContext(db: Db, name: string): void {
  db.run("DELETE FROM contexts WHERE name = ?", name);
}

/** The caller's active context; the default when none is set or the set one was removed. */
export function activeContext(db: Db, caller: string): ActiveContext {
  const row = db.one<{ context: string }>("SELECT context FROM active_contexts WHERE caller = ?", caller);
  if (!row) return { name: DEFAULT_CONTEXT };
  const c = findContext(db, row.context);
  if (c && c.removedAt === null) return { name: c.name };
  // The default is always usable: it is registered on first use.
  if (row.context === DEFAULT_CONTEXT) return { name: DEFAULT_CONTEXT };
  return { name: DEFAULT_CONTEXT, fellBackFrom: row.context };
}

export function setActiveContext(db: Db, caller: string, name: string, now: number): void {
  db.run(
    `INSERT INTO active_contexts (caller, context, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (caller) DO UPDATE SET context = excluded.context, updated_at = excluded.updated_at`,
    caller,
    name,
    now,
  );
}
