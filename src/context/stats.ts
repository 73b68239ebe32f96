/**
 * Read-only numbers about one context for people looking at it (the web
 * page's overview and an entity's access statistics): counts across every
 * domain and the access columns the access hook keeps on entities.
 *
 * A store module: the only SQL here is plain counting and lookup. Reading
 * these numbers is not an access: nothing here writes, so looking at an
 * entity's statistics never changes them.
 */
import { chunksFor, placeholders, type Db } from "./sql";

export interface ContextCounts {
  entities: number;
  relations: number;
  observations: number;
  files: number;
  documents: number;
  /** Change records kept (history retention trims them). */
  changes: number;
  /** The newest change's #seq, 0 before the first write. */
  lastChange: number;
  /** Bytes the context's SQLite database takes. */
  bytes: number;
}

export interface EntityAccessStats {
  name: string;
  entityType: string;
  /** Times the entity was returned by a retrieval (open_nodes and the like). */
  accessCount: number;
  lastAccessedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export function contextCounts(db: Db): ContextCounts {
  const row = db.one<{ e: number; r: number; o: number; f: number; d: number; c: number; s: number | null }>(
    `SELECT (SELECT COUNT(*) FROM entities) AS e, (SELECT COUNT(*) FROM relations) AS r,
            (SELECT COUNT(*) FROM observations) AS o, (SELECT COUNT(*) FROM files) AS f,
            (SELECT COUNT(*) FROM documents) AS d, (SELECT COUNT(*) FROM changes) AS c,
            (SELECT MAX(seq) FROM changes) AS s`,
  );
  return {
    entities: row?.e ?? 0,
    relations: row?.r ?? 0,
    observations: row?.o ?? 0,
    files: row?.f ?? 0,
    documents: row?.d ?? 0,
    changes: row?.c ?? 0,
    lastChange: row?.s ?? 0,
    bytes: db.sql.databaseSize,
  };
}

/** Access statistics of the named entities that exist, in the order asked, each once. */
export function entityAccessStats(db: Db, names: readonly string[]): EntityAccessStats[] {
  const found = new Map<string, EntityAccessStats>();
  for (const chunk of chunksFor([...new Set(names)])) {
    const rows = db.all<{ name: string; entity_type: string; access_count: number; last_accessed_at: number | null; created_at: number; updated_at: number }>(
      `SELECT name, entity_type, access_count, last_accessed_at, created_at, updated_at FROM entities WHERE name IN (${placeholders(chunk.length)})`,
      ...chunk,
    );
    for (const r of rows) {
      found.set(r.name, {
        name: r.name,
        entityType: r.entity_type,
        accessCount: r.access_count,
        lastAccessedAt: r.last_accessed_at,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
      });
    }
  }
  return [...new Set(names)].flatMap((n) => found.get(n) ?? []);
}
