/**
 * Schema migrations for a MemoryContext.
 *
 * ## Rules
 * - Files in /migrations are numbered, append-only and never edited once shipped.
 * - They are applied once, in order, each in its own transaction, and the
 *   version reached is recorded in `_schema_version`.
 * - Whether a migration ran is decided by that version, never by probing
 *   tables or matching error strings.
 */
import m0001 from "../../migrations/0001_init.sql";
import m0003 from "../../migrations/0003_search.sql";
import type { Db } from "./sql";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "0001_init", sql: m0001 },
  { version: 3, name: "0003_search", sql: m0003 },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function schemaVersion(db: Db): number {
  db.run("CREATE TABLE IF NOT EXISTS _schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL)");
  const row = db.one<{ v: number | null }>("SELECT MAX(version) AS v FROM _schema_version");
  return row?.v ?? 0;
}

/**
 * Brings the database up to `target` (default: the latest version).
 * `transaction` is the storage's `transactionSync`, so each migration and its
 * version record commit together or not at all.
 */
export function migrate(
  db: Db,
  transaction: <T>(fn: () => T) => T,
  migrations: readonly Migration[] = MIGRATIONS,
  target = LATEST_VERSION,
  now = Date.now(),
): number {
  let version = schemaVersion(db);
  for (const m of migrations) {
    if (m.version <= version || m.version > target) continue;
    transaction(() => {
      db.script(m.sql);
      db.run("INSERT INTO _schema_version (version, applied_at) VALUES (?, ?)", m.version, now);
    });
    version = m.version;
  }
  return version;
}
