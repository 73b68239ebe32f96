/**
 * Schema migrations for the Registry object, in migrations/registry/.
 * Same rules as a MemoryContext's (src/storage/migrations.ts): numbered,
 * append-only, applied once in order and tracked in `_schema_version`.
 */
import r0001 from "../../migrations/registry/0001_init.sql";
import r0002 from "../../migrations/registry/0002_oauth_grants.sql";
import r0003 from "../../migrations/registry/0003_oauth_refresh.sql";
import type { Migration } from "../storage/migrations";

export const REGISTRY_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "0001_init", sql: r0001 },
  { version: 2, name: "0002_oauth_grants", sql: r0002 },
  { version: 3, name: "0003_oauth_refresh", sql: r0003 },
];
