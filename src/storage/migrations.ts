/**
 * Schema migrations for a MemoryContext.
 *
 * ## Rules
 * - Files in /migrations are numbered, append-only and never edited once shipped.
 * - They are applied once, in order, each in its own transaction, and each
 *   version applied is recorded in `_schema_version`; a listed version not
 *   recorded there is applied even when a higher one is (features merge in
 *   any order, so 0003 may reach a database after 0005).
 * - Whether a migration ran is decided by that version, never by probing
 *   tables or matching error strings.
 */
import m0001 from "../../migrations/0001_init.sql";
import m0002 from "../../migrations/0002_history.sql";
import m0003 from "../../migrations/0003_search.sql";
import m0004 from "../../migrations/0004_files_covisit.sql";
import m0005 from "../../migrations/0005_documents.sql";
import m0006 from "../../migrations/0006_priority.sql";
import m0007 from "../../migrations/0007_archive_bytes.sql";
import m0008 from "../../migrations/0008_documents_fts_update.sql";
import m0009 from "../../migrations/0009_search_compaction.sql";
import m0010 from "../../migrations/0010_search_hubs.sql";
import m0011 from "../../migrations/0011_change_caller_id.sql";
import m0012 from "../../migrations/0012_item_names_nocase.sql";
import m0013 from "../../migrations/0013_aliases.sql";
import m0014 from "../../migrations/0014_observation_validity.sql";
import m0015 from "../../migrations/0015_embeddings.sql";
import m0016 from "../../migrations/0016_files_fts.sql";
import m0017 from "../../migrations/0017_load_indexes.sql";
import m0018 from "../../migrations/0018_vector_lists.sql";
import m0019 from "../../migrations/0019_cluster_queue.sql";
import m0020 from "../../migrations/0020_registration.sql";
import m0021 from "../../migrations/0021_team.sql";
import m0022 from "../../migrations/0022_browse_indexes.sql";
import m0023 from "../../migrations/0023_subscriptions.sql";
import m0024 from "../../migrations/0024_search_postings.sql";
import m0025 from "../../migrations/0025_search_bounds.sql";
import m0026 from "../../migrations/0026_subscription_readers.sql";
import type { Db } from "./sql";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "0001_init", sql: m0001 },
  { version: 2, name: "0002_history", sql: m0002 },
  { version: 3, name: "0003_search", sql: m0003 },
  { version: 4, name: "0004_files_covisit", sql: m0004 },
  { version: 5, name: "0005_documents", sql: m0005 },
  { version: 6, name: "0006_priority", sql: m0006 },
  { version: 7, name: "0007_archive_bytes", sql: m0007 },
  { version: 8, name: "0008_documents_fts_update", sql: m0008 },
  { version: 9, name: "0009_search_compaction", sql: m0009 },
  { version: 10, name: "0010_search_hubs", sql: m0010 },
  { version: 11, name: "0011_change_caller_id", sql: m0011 },
  { version: 12, name: "0012_item_names_nocase", sql: m0012 },
  { version: 13, name: "0013_aliases", sql: m0013 },
  { version: 14, name: "0014_observation_validity", sql: m0014 },
  { version: 15, name: "0015_embeddings", sql: m0015 },
  { version: 16, name: "0016_files_fts", sql: m0016 },
  { version: 17, name: "0017_load_indexes", sql: m0017 },
  { version: 18, name: "0018_vector_lists", sql: m0018 },
  { version: 19, name: "0019_cluster_queue", sql: m0019 },
  { version: 20, name: "0020_registration", sql: m0020 },
  { version: 21, name: "0021_team", sql: m0021 },
  { version: 22, name: "0022_browse_indexes", sql: m0022 },
  { version: 23, name: "0023_subscriptions", sql: m0023 },
  { version: 24, name: "0024_search_postings", sql: m0024 },
  { version: 25, name: "0025_search_bounds", sql: m0025 },
  { version: 26, name: "0026_subscription_readers", sql: m0026 },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

export function schemaVersion(db: Db): number {
  db.run("CREATE TABLE IF NOT EXISTS _schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL)");
  const row = db.one<{ v: number | null }>("SELECT MAX(version) AS v FROM _schema_version");
  return row?.v ?? 0;
}

/**
 * Brings the database up to `target` (default: the last of `migrations`).
 * The Registry object reuses it with its own list (src/registry/migrations.ts).
 * `transaction` is the storage's `transactionSync`, so each migration and its
 * version record commit together or not at all.
 */
export function migrate(
  db: Db,
  transaction: <T>(fn: () => T) => T,
  migrations: readonly Migration[] = MIGRATIONS,
  target = migrations[migrations.length - 1]?.version ?? 0,
  now = Date.now(),
): number {
  let version = schemaVersion(db);
  // Features land in any order, so a database may have a later migration and
  // not an earlier-numbered one: apply every listed version not yet recorded.
  const applied = new Set(db.all<{ version: number }>("SELECT version FROM _schema_version").map((r) => r.version));
  for (const m of migrations) {
    if (applied.has(m.version) || m.version > target) continue;
    transaction(() => {
      db.script(m.sql);
      db.run("INSERT INTO _schema_version (version, applied_at) VALUES (?, ?)", m.version, now);
    });
    version = Math.max(version, m.version);
  }
  return version;
}
