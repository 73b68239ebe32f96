/**
 * Whole-graph reads that must never blow a client's context window or the
 * object's memory: read_graph pages and the JSONL export.
 *
 * Both walk entities in id (insertion) order from an opaque cursor and never
 * hold more than one page in memory. Export lines are the official format
 * plus engram's optional extras: `important: true` when marked,
 * `category` when the classifier would not give it back on import, and
 * `aliases` (the names merged into the entity, src/graph/aliases.ts). A page carries each entity's outgoing
 * relations, so every relation appears exactly once across all pages.
 */
import { DomainError } from "../errors";
import { LIMITS } from "../limits";
import { roundUp, sqlLimit, type Db } from "../storage/sql";
import { classifyEntity } from "../items";
import { aliasesByEntity } from "./aliases";
import { RELATION_SELECT, toRelation, withObservations, type EntityRow, type RelationRow } from "./rows";
import type { GraphPage, Relation } from "./types";

export interface ReadGraphOptions {
  limit?: number;
  cursor?: string;
  mode?: "full" | "summary";
}

interface Cursor {
  /** Entities with id greater than this come next. */
  after: number;
  /** Export only: "e" while exporting entities, "r" for relations. */
  phase?: "e" | "r";
}

export function encodeCursor(c: Cursor): string {
  return btoa(JSON.stringify(c)).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

export function decodeCursor(text: string | undefined): Cursor {
  if (text === undefined || text === "") return { after: 0 };
  try {
    const json = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const c = JSON.parse(json) as unknown;
    if (typeof c === "object" && c !== null && Number.isSafeInteger((c as Cursor).after) && (c as Cursor).after >= 0) {
      const phase = (c as Cursor).phase;
      if (phase === undefined || phase === "e" || phase === "r") return c as Cursor;
    }
  } catch {
    // fall through to the error below
  }
  throw new DomainError("Invalid", "cursor: not a cursor this server issued. Omit it to start from the beginning.");
}

const bytes = (value: unknown) => JSON.stringify(value).length;

export function readGraph(db: Db, opts: ReadGraphOptions): GraphPage {
  const limit = Math.min(opts.limit ?? LIMITS.readGraphPageEntities, LIMITS.readGraphPageEntities);
  const { after } = decodeCursor(opts.cursor);
  // One more row than the page tells whether there are more; the LIMIT is a literal (sql.ts sqlLimit).
  const rows = db
    .all<EntityRow>(`SELECT id, name, entity_type FROM entities WHERE id > ? ORDER BY id LIMIT ${sqlLimit(roundUp(limit + 1))}`, after)
    .slice(0, limit + 1);
  const hasMoreRows = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  if (pageRows.length === 0) return { entities: [], relations: [] };

  const first = pageRows[0]?.id ?? 0;
  const last = pageRows[pageRows.length - 1]?.id ?? 0;
  const outgoing = new Map<number, Relation[]>();
  for (const r of db.all<RelationRow & { from_id: number }>(
    `${RELATION_SELECT.replace("SELECT r.id,", "SELECT r.id, r.from_id,")} WHERE r.from_id BETWEEN ? AND ? ORDER BY r.id`,
    first,
    last,
  )) {
    const list = outgoing.get(r.from_id) ?? [];
    list.push(toRelation(r));
    outgoing.set(r.from_id, list);
  }

  const full = opts.mode !== "summary";
  const entities = full ? withObservations(db, pageRows) : pageRows.map((r) => ({ name: r.name, entityType: r.entity_type }));

  // Keep whole entities (with their outgoing relations) until the byte budget is spent.
  const page: GraphPage = { entities: [], relations: [] };
  let used = 0;
  let lastKept = after;
  for (let i = 0; i < pageRows.length; i++) {
    const row = pageRows[i] as EntityRow;
    const entity = entities[i] as GraphPage["entities"][number];
    const rels = outgoing.get(row.id) ?? [];
    const size = bytes(entity) + rels.reduce((n, r) => n + bytes(r), 0);
    if (page.entities.length > 0 && used + size > LIMITS.readGraphPageBytes) break;
    page.entities.push(entity);
    page.relations.push(...rels);
    used += size;
    lastKept = row.id;
  }
  const cutByBytes = page.entities.length < pageRows.length;
  if (hasMoreRows || cutByBytes) {
    page.nextCursor = encodeCursor({ after: lastKept });
    page.note =
      `Partial graph: ${page.entities.length} entities in this page. ` +
      "Call read_graph with this cursor for the next page, or use search_nodes / open_nodes for specific knowledge.";
  }
  return page;
}

/** One page of the official memory.jsonl format: entity lines first, then relation lines. */
export function exportPage(db: Db, cursorText: string | undefined, maxLines: number): { lines: string[]; next?: string } {
  const cursor = decodeCursor(cursorText);
  const lines: string[] = [];
  if ((cursor.phase ?? "e") === "e") {
    const rows = db.all<EntityRow & { category: string; important: number }>(
      "SELECT id, name, entity_type, category, important FROM entities WHERE id > ? ORDER BY id LIMIT ?",
      cursor.after,
      maxLines,
    );
    const entities = withObservations(db, rows);
    const aliases = aliasesByEntity(
      db,
      rows.map((r) => r.id),
    );
    for (const [i, e] of entities.entries()) {
      // Engram's extras ride along as extra fields, which the official server's reader ignores: the
      // category when an import would not get it back from the classifier, the importance mark when set.
      const row = rows[i] as (typeof rows)[number];
      const classified = classifyEntity(e.name, e.entityType, e.observations);
      const extras = {
        ...(row.category !== classified && { category: row.category }),
        ...(row.important === 1 && { important: true }),
        ...(aliases.has(row.id) && { aliases: aliases.get(row.id) }),
      };
      lines.push(JSON.stringify({ type: "entity", name: e.name, entityType: e.entityType, observations: e.observations, ...extras }));
    }
    const lastId = rows[rows.length - 1]?.id;
    if (rows.length === maxLines && lastId !== undefined) return { lines, next: encodeCursor({ after: lastId, phase: "e" }) };
    return { lines, next: encodeCursor({ after: 0, phase: "r" }) };
  }
  const rows = db.all<RelationRow>(`${RELATION_SELECT} WHERE r.id > ? ORDER BY r.id LIMIT ?`, cursor.after, maxLines);
  for (const r of rows) {
    lines.push(JSON.stringify({ type: "relation", from: r.from_name, to: r.to_name, relationType: r.relation_type }));
  }
  const lastId = rows[rows.length - 1]?.id;
  return rows.length === maxLines && lastId !== undefined ? { lines, next: encodeCursor({ after: lastId, phase: "r" }) } : { lines };
}
