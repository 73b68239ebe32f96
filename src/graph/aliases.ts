/**
 * Aliases: the names of entities merged into another (merge_entities,
 * ./merge.ts), kept on the survivor.
 *
 * ## Storage layout
 * `entity_aliases(alias PRIMARY KEY, alias_key, entity_id, created_at)`
 * (migrations/0013_aliases.sql). No entity has an alias's name: merge deletes
 * the entity first, create_entities refuses the name (`refuseAliases`), an
 * import skips an alias that names an entity.
 *
 * ## Recorded writes and inverse ops
 * - `{kind:"alias", alias, entity, prior}`: prior null = the alias was added
 *   (undo removes it); prior `{createdAt}` = it was removed from `entity`
 *   (undo puts it back). deleteEntityRow (./writes.ts) removes an entity's
 *   aliases through `removeAliasesOf`, before it notes the entity, so an undo
 *   restores the entity first and then its aliases.
 */
import { DomainError } from "../errors";
import type { InverseKind, Phrase, WriteScope } from "../history";
import { itemKey } from "../items";
import { chunksFor, jsonBatches, placeholders, type Db } from "../storage/sql";
import { normalName } from "./names";
import { idsByName } from "./rows";

type AliasOp = { kind: "alias"; alias: string; entity: string; prior: { createdAt: number } | null };

/** Adds `alias` to the entity `entityId` (named `entity`); false when the name is already an alias. */
export function insertAlias(w: WriteScope, entityId: number, entity: string, alias: string, createdAt?: number): boolean {
  const written = w.db.run(
    "INSERT INTO entity_aliases (alias, alias_key, entity_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (alias) DO NOTHING",
    alias,
    normalName(alias).key,
    entityId,
    createdAt ?? w.now,
  );
  if (written > 0) w.rec.note([itemKey.entity(entity)], { kind: "alias", alias, entity, prior: null } satisfies AliasOp);
  return written > 0;
}

/**
 * Adds `aliases` to the entity `entityId` (named `entity`), each unless its
 * name is taken: an entity has it, or it is another entity's alias (one the
 * entity already has is kept). Returns the taken ones, each with what holds it.
 */
export function addAliasesUnlessTaken(
  w: WriteScope,
  entityId: number,
  entity: string,
  aliases: readonly { alias: string; createdAt?: number }[],
): { alias: string; takenBy: string }[] {
  if (aliases.length === 0) return [];
  const names = aliases.map((a) => a.alias);
  const entities = idsByName(w.db, names);
  const owners = resolveAliases(w.db, names);
  const taken: { alias: string; takenBy: string }[] = [];
  for (const a of aliases) {
    const owner = owners.get(a.alias);
    if (entities.has(a.alias)) taken.push({ alias: a.alias, takenBy: `the entity ${JSON.stringify(a.alias)}` });
    else if (owner !== undefined && owner !== entity) taken.push({ alias: a.alias, takenBy: `an alias of ${JSON.stringify(owner)}` });
    else insertAlias(w, entityId, entity, a.alias, a.createdAt);
  }
  return taken;
}

/** Removes one alias; false when there was none. */
function removeAlias(w: WriteScope, alias: string, entity: string): boolean {
  const row = w.db.one<{ created_at: number }>("DELETE FROM entity_aliases WHERE alias = ? RETURNING created_at", alias);
  if (row) w.rec.note([itemKey.entity(entity)], { kind: "alias", alias, entity, prior: { createdAt: row.created_at } } satisfies AliasOp);
  return row !== undefined;
}

/** Removes every alias of an entity (its row is about to go); returns them, oldest first. */
export function removeAliasesOf(w: WriteScope, entityId: number, entity: string): string[] {
  const aliases = aliasesOf(w.db, entityId);
  for (const a of aliases) removeAlias(w, a, entity);
  return aliases;
}

/** An entity's aliases, oldest first. */
export function aliasesOf(db: Db, entityId: number): string[] {
  return db.all<{ alias: string }>("SELECT alias FROM entity_aliases WHERE entity_id = ? ORDER BY created_at, alias", entityId).map((r) => r.alias);
}

/** The aliases of many entities, by entity id (entities without aliases are absent). */
export function aliasesByEntity(db: Db, ids: readonly number[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const chunk of chunksFor([...new Set(ids)])) {
    for (const r of db.all<{ alias: string; entity_id: number }>(
      `SELECT alias, entity_id FROM entity_aliases WHERE entity_id IN (${placeholders(chunk.length)}) ORDER BY created_at, alias`,
      ...chunk,
    )) {
      const list = out.get(r.entity_id) ?? [];
      list.push(r.alias);
      out.set(r.entity_id, list);
    }
  }
  return out;
}

/** The entity each of `names` is an alias of, by alias (names that are no alias are absent). */
export function resolveAliases(db: Db, names: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const batch of jsonBatches([...new Set(names)])) {
    for (const r of db.all<{ alias: string; name: string }>(
      "SELECT a.alias, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.alias IN (SELECT value FROM json_each(?))",
      batch,
    )) {
      out.set(r.alias, r.name);
    }
  }
  return out;
}

/** Aliases whose normal form's key is `key` (search_nodes by an old name), with their entity's name; at most `limit`. */
export function aliasesWithKey(db: Db, key: string, limit = 5): { alias: string; entity: string }[] {
  if (key === "") return [];
  return db.all<{ alias: string; entity: string }>(
    `SELECT a.alias, e.name AS entity FROM entity_aliases a JOIN entities e ON e.id = a.entity_id WHERE a.alias_key = ? ORDER BY a.alias LIMIT ${limit}`,
    key,
  );
}

/** Throws, naming each entity, when any of `names` is an alias: the name belongs to the entity it was merged into. */
export function refuseAliases(db: Db, names: readonly string[], tool: string): void {
  const taken = resolveAliases(db, names);
  if (taken.size === 0) return;
  const shown = [...taken].slice(0, 5).map(([name, entity]) => `${JSON.stringify(name)} is an alias of ${JSON.stringify(entity)}`);
  const more = taken.size > 5 ? ` and ${taken.size - 5} more` : "";
  throw new DomainError("Conflict", `${tool}: ${shown.join(", ")}${more} (merged into it). Use the entity's name; nothing was written.`);
}

const alias: InverseKind<AliasOp> = {
  apply(w, op) {
    const row = w.db.one<{ id: number }>("SELECT id FROM entities WHERE name = ?", op.entity);
    if (op.prior === null) {
      removeAlias(w, op.alias, op.entity);
      return;
    }
    if (!row) throw new DomainError("Conflict", `entity "${op.entity}" no longer exists, so its alias "${op.alias}" cannot be restored; nothing was undone.`);
    if (w.db.one("SELECT 1 AS taken FROM entities WHERE name = ?", op.alias)) {
      throw new DomainError("Conflict", `an entity named "${op.alias}" exists again, so it cannot be an alias of "${op.entity}"; nothing was undone.`);
    }
    const current = w.db.one<{ entity_id: number }>("SELECT entity_id FROM entity_aliases WHERE alias = ?", op.alias);
    if (current?.entity_id === row.id) return;
    if (current) throw new DomainError("Conflict", `"${op.alias}" is now an alias of another entity, so it cannot be restored; nothing was undone.`);
    insertAlias(w, row.id, op.entity, op.alias, op.prior.createdAt);
  },
  describe: (op): Phrase => ({ action: op.prior === null ? "+" : "-", noun: "alias", name: `${op.alias} → ${op.entity}` }),
};

export const aliasInverse = { alias };

/**
 * open_nodes by old names: each of `names` that is no entity but an alias
 * becomes the entity's name; `aliases` says which (alias → entity).
 */
export function openByAlias(db: Db, names: readonly string[]): { names: string[]; aliases: Record<string, string> } {
  const existing = new Set(
    db.all<{ name: string }>("SELECT name FROM entities WHERE name IN (SELECT value FROM json_each(?))", JSON.stringify(names)).map((r) => r.name),
  );
  const unknown = names.filter((n) => !existing.has(n));
  const resolved = unknown.length === 0 ? new Map<string, string>() : resolveAliases(db, unknown);
  return { names: names.map((n) => resolved.get(n) ?? n), aliases: Object.fromEntries(resolved) };
}
