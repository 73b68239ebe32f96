/**
 * Archived graph items in the JSONL export and import (src/api/routes.ts).
 *
 * After the official format's entity and relation lines, the export lists
 * the archive's graph rows, one line each, oldest first, under types that
 * the official server's reader skips (it keeps only "entity" and "relation"
 * lines):
 *
 *   archived_entity     {type, name, entityType, observations, relations: [{from, to, relationType}],
 *                        aliases?, category?, priority, reason, archivedAt}  an entity the evaluation
 *                        pruned, with the relations its row holds (./archive.ts) and the names merged
 *                        into it, as on entity lines
 *   archived_relations  {type, name, relations, priority, reason, archivedAt}  relations of entity
 *                        `name` kept until their other end exists again (./relations.ts)
 *
 * `priority` and `reason` are the row's; `archivedAt` is an ISO time;
 * `category` is written only when the classifier would not give it back, as
 * on entity lines (src/graph/read.ts).
 *
 * Import puts each line back as an archive row through putArchive, so it is
 * recorded with the import (undo removes it) and `restore` brings it back as
 * it does a pruned item. What a line does not carry starts as for a new
 * entity: access statistics and tier; row ids are hints a restore takes only
 * when free; the rows' times are `archivedAt`. A line whose item, kind and
 * archivedAt match a row already there is a duplicate and is skipped.
 *
 * Archived files and documents are not exported, as live ones are not: the
 * JSONL export is the knowledge graph.
 */
import type { Db } from "../storage/sql";
import type { WriteScope } from "../history";
import type { Relation } from "../graph/types";
import { ARCHIVE_MAX_BYTES, getArchive, putArchive, type ArchivedRelation, type ArchiveEntry, type Payload } from "./archive";
import { classifyEntity, type ItemStats } from "../items";

type Common = { line: number; name: string; relations: Relation[]; priority: number; reason: string; archivedAt: number };
export type ArchivedImport =
  | (Common & { type: "archived_entity"; entityType: string; observations: string[]; aliases?: string[]; category?: string })
  | (Common & { type: "archived_relations" });

export interface ArchivedImportReport {
  archivedAdded: number;
  duplicates: number;
  rejected: { line: number; error: string }[];
}

const plain = (relations: readonly ArchivedRelation[]): Relation[] => relations.map((r) => ({ from: r.from, to: r.to, relationType: r.relationType }));

/** The export line of archive entry `e`, or undefined for a file or document row. */
function lineOf(e: ArchiveEntry): string | undefined {
  const p = e.payload;
  const row = { priority: e.priority, reason: e.reason, archivedAt: new Date(e.archivedAt).toISOString() };
  if (p.kind === "relations") return JSON.stringify({ type: "archived_relations", name: p.name, relations: plain(p.relations), ...row });
  if (p.kind !== "entity") return undefined;
  const observations = p.observations.map((o) => o.content);
  const category = p.stats.category !== classifyEntity(p.name, p.entityType, observations) ? { category: p.stats.category } : {};
  const aliases = p.aliases && p.aliases.length > 0 ? { aliases: p.aliases.map((a) => a.alias) } : {};
  return JSON.stringify({
    type: "archived_entity",
    name: p.name,
    entityType: p.entityType,
    observations,
    relations: plain(p.relations),
    ...aliases,
    ...category,
    ...row,
  });
}

/**
 * Export lines of the archive's graph rows after row `after`: at most
 * `maxLines`, and past `maxChars` of payload only the first (a payload may
 * be 1.5 MB, so rows are read one at a time). `next` is the last row read.
 */
export function exportArchivePage(db: Db, after: number, maxLines: number, maxChars: number): { lines: string[]; next?: number } {
  // Entity and relations rows are keyed entity:<name>; ';' is the character after ':'.
  const heads = db.all<{ id: number; bytes: number }>(
    "SELECT id, bytes FROM archive WHERE id > ? AND item >= 'entity:' AND item < 'entity;' ORDER BY id LIMIT ?",
    after,
    maxLines,
  );
  const lines: string[] = [];
  let chars = 0;
  let last: number | undefined;
  for (const h of heads) {
    if (last !== undefined && chars + h.bytes > maxChars) break;
    const entry = getArchive(db, h.id);
    const line = entry && lineOf(entry);
    if (line) lines.push(line);
    chars += h.bytes;
    last = h.id;
  }
  const more = last !== undefined && (last !== heads[heads.length - 1]?.id || heads.length === maxLines);
  return more ? { lines, next: last } : { lines };
}

const nextId = (db: Db, table: "entities" | "observations" | "relations") => db.one<{ n: number }>(`SELECT COALESCE(MAX(id), 0) + 1 AS n FROM ${table}`)?.n ?? 1;

/** A new item's priority columns (migrations/0006_priority.sql defaults) with `category`. */
const freshStats = (category: string): ItemStats => ({
  accessCount: 0,
  lastAccessedAt: null,
  category,
  important: false,
  baseRelevance: 1,
  tier: "short",
  uses: 0,
  clusterSize: 0,
});

function payloadOf(db: Db, item: ArchivedImport): Payload {
  const relationBase = nextId(db, "relations");
  const relations = item.relations.map((r, i) => ({ id: relationBase + i, ...r, createdAt: item.archivedAt }));
  if (item.type === "archived_relations") return { kind: "relations", name: item.name, relations };
  const observationBase = nextId(db, "observations");
  const contents = [...new Set(item.observations)];
  return {
    kind: "entity",
    id: nextId(db, "entities"),
    name: item.name,
    entityType: item.entityType,
    createdAt: item.archivedAt,
    updatedAt: item.archivedAt,
    stats: freshStats(item.category ?? classifyEntity(item.name, item.entityType, contents)),
    observations: contents.map((content, i) => ({ id: observationBase + i, content, createdAt: item.archivedAt })),
    relations,
    ...(item.aliases && item.aliases.length > 0 && { aliases: [...new Set(item.aliases)].map((alias) => ({ alias, createdAt: item.archivedAt })) }),
  };
}

/** Writes archived lines as archive rows in the caller's recorded transaction (see the module note). */
export function importArchived(w: WriteScope, items: readonly ArchivedImport[]): ArchivedImportReport {
  const report: ArchivedImportReport = { archivedAdded: 0, duplicates: 0, rejected: [] };
  for (const item of items) {
    const kind = item.type === "archived_entity" ? "entity" : "relations";
    const key = `entity:${item.name}`;
    if (w.db.one("SELECT 1 AS found FROM archive WHERE item = ? AND archived_at = ? AND json_extract(payload, '$.kind') = ?", key, item.archivedAt, kind)) {
      report.duplicates++;
      continue;
    }
    const payload = payloadOf(w.db, item);
    const bytes = Buffer.byteLength(JSON.stringify(payload));
    if (bytes > ARCHIVE_MAX_BYTES) {
      report.rejected.push({ line: item.line, error: `archived item too large: ${bytes} bytes stored, at most ${ARCHIVE_MAX_BYTES}` });
      continue;
    }
    putArchive(w, { id: null, item: key, payload, priority: item.priority, reason: item.reason, archivedAt: item.archivedAt });
    report.archivedAdded++;
  }
  return report;
}
