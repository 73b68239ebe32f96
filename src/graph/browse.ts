/**
 * Browsing the graph without a search, for people: entities one page at a
 * time in a chosen order, and a bounded picture of the graph (its most
 * important and most connected entities, or one entity's neighbourhood).
 * Neither is an access: looking at a list does not move priorities.
 *
 * ## Pages
 * Keyset pages, never OFFSET: a cursor holds the sort key of the row at the
 * page's edge, and the next (or previous) page starts strictly after (or
 * before) it, so a page costs the same at row 10 and at row 100,000. Every
 * order ends in `id`, which makes keys unique; the indexes of migration
 * 0022 (and the UNIQUE name index) serve each order with and without a type
 * filter.
 *
 * ## Picture
 * Entities rank by the importance mark, then by use plus degree (relation
 * ends, from search_entity_stats), then age; a picture holds at most
 * GRAPH_VIEW_MAX entities and the relations among them.
 */
import { DomainError } from "../errors";
import { LIMITS } from "../limits";
import { sqlLimit, type Db } from "../storage/sql";

export type EntitySort = "name" | "updated" | "priority";

export const ENTITY_SORTS: readonly EntitySort[] = ["name", "updated", "priority"];

export const BROWSE_PAGE_MAX = 200;
export const GRAPH_VIEW_MAX = 500;

export interface BrowseOptions {
  sort: EntitySort;
  type?: string;
  cursor?: string;
  limit: number;
}

interface BrowsedEntity {
  name: string;
  entityType: string;
  updatedAt: number;
  important: boolean;
  uses: number;
  observations: number;
  degree: number;
}

export interface EntityPage {
  entities: BrowsedEntity[];
  /** Cursor of the page after this one, when there is one. */
  next?: string;
  /** Cursor of the page before this one, when there is one. */
  previous?: string;
}

interface Order {
  columns: readonly string[];
  descending: boolean;
}

const ORDERS: Record<EntitySort, Order> = {
  name: { columns: ["e.name", "e.id"], descending: false },
  updated: { columns: ["e.updated_at", "e.id"], descending: true },
  priority: { columns: ["e.important", "e.uses", "e.id"], descending: true },
};

type Key = (string | number)[];

export interface Cursor {
  /** The sort key of the row at the page's edge. */
  k: Key;
  /** "n": the rows after it; "p": the rows before it. */
  d: "n" | "p";
}

const encode = (c: Cursor) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(c))))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replaceAll("=", "");

function decode(text: string, order: Order): Cursor {
  try {
    const bytes = Uint8Array.from(atob(text.replaceAll("-", "+").replaceAll("_", "/")), (ch) => ch.charCodeAt(0));
    const c = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes)) as Partial<Cursor>;
    const fits = Array.isArray(c.k) && c.k.length === order.columns.length && c.k.every((v) => typeof v === "string" || typeof v === "number");
    if (fits && (c.d === "n" || c.d === "p")) return { k: c.k as Key, d: c.d };
  } catch {
    // Falls through to the error below.
  }
  throw new DomainError("Invalid", "cursor: not a cursor this listing gave for this sort; start from the first page.");
}

interface BrowseRow extends Record<string, SqlStorageValue> {
  id: number;
  name: string;
  entity_type: string;
  updated_at: number;
  important: number;
  uses: number;
  observations: number | null;
  degree: number | null;
}

const BROWSE_SELECT = `SELECT e.id, e.name, e.entity_type, e.updated_at, e.important, e.uses, s.observations, s.degree
  FROM entities e LEFT JOIN search_entity_stats s ON s.entity_id = e.id`;

const toBrowsed = (r: BrowseRow): BrowsedEntity => ({
  name: r.name,
  entityType: r.entity_type,
  updatedAt: r.updated_at,
  important: r.important === 1,
  uses: r.uses,
  observations: r.observations ?? 0,
  degree: r.degree ?? 0,
});

const keyOf = (r: BrowseRow, sort: EntitySort): Key => (sort === "name" ? [r.name, r.id] : sort === "updated" ? [r.updated_at, r.id] : [r.important, r.uses, r.id]);

/**
 * The statement reading one page (and one row more, to know whether another
 * follows): a row-value comparison with the cursor's key, so an index on
 * the order's columns serves it. Walking backwards reads the reverse order
 * from the cursor; the caller turns the rows round.
 */
export function pageStatement(
  sort: EntitySort,
  type: string | undefined,
  cursor: Cursor | undefined,
  limit: number,
): { query: string; params: (string | number)[] } {
  const order = ORDERS[sort];
  const descending = order.descending !== (cursor?.d === "p");
  const where: string[] = [];
  const params: (string | number)[] = [];
  if (type !== undefined) {
    where.push("e.entity_type = ?");
    params.push(type);
  }
  if (cursor) {
    where.push(`(${order.columns.join(", ")}) ${descending ? "<" : ">"} (${order.columns.map(() => "?").join(", ")})`);
    params.push(...cursor.k);
  }
  const query = `${BROWSE_SELECT} ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY ${order.columns.map((c) => `${c} ${descending ? "DESC" : "ASC"}`).join(", ")} LIMIT ${sqlLimit(limit + 1)}`;
  return { query, params };
}

/** One page of entities in `sort` order (optionally of one type), with cursors to the pages around it. */
export function browseEntities(db: Db, opts: BrowseOptions): EntityPage {
  const order = ORDERS[opts.sort];
  const limit = Math.max(1, Math.min(opts.limit, BROWSE_PAGE_MAX));
  const cursor = opts.cursor === undefined || opts.cursor === "" ? undefined : decode(opts.cursor, order);
  if (opts.type !== undefined && (opts.type === "" || opts.type.length > LIMITS.entityName)) {
    throw new DomainError("Invalid", `type: 1-${LIMITS.entityName} characters.`);
  }
  const backwards = cursor?.d === "p";
  const { query, params } = pageStatement(opts.sort, opts.type, cursor, limit);
  const rows = db.all<BrowseRow>(query, ...params);
  const more = rows.length > limit;
  const page = rows.slice(0, limit);
  if (backwards) page.reverse();
  const first = page[0];
  const last = page[page.length - 1];
  const out: EntityPage = { entities: page.map(toBrowsed) };
  // Forwards: a next page when rows were left over, a previous one whenever we came from a cursor; backwards, the reverse.
  const hasNext = backwards ? cursor !== undefined : more;
  const hasPrevious = backwards ? more : cursor !== undefined;
  if (hasNext && last) out.next = encode({ k: keyOf(last, opts.sort), d: "n" });
  if (hasPrevious && first) out.previous = encode({ k: keyOf(first, opts.sort), d: "p" });
  return out;
}

/** The entity types in use with their counts, most common first (at most 100), for a type filter. */
export function entityTypes(db: Db): { type: string; count: number }[] {
  return db.all<{ type: string; count: number }>(
    "SELECT entity_type AS type, count(*) AS count FROM entities GROUP BY entity_type ORDER BY count DESC, entity_type LIMIT 100",
  );
}

export interface GraphViewOptions {
  /** The entity whose neighbourhood to show; the whole context when absent. */
  around?: string;
  limit: number;
}

export interface GraphView {
  entities: BrowsedEntity[];
  relations: { from: string; to: string; relationType: string }[];
  /** How many entities the whole picture would hold (the context's, or the neighbourhood's). */
  total: number;
}

const RANK = "e.important DESC, e.uses + COALESCE(s.degree, 0) DESC, e.id";

/** The best-ranked `limit` entities (or `around` and its best-ranked neighbours) and the relations among them. */
export function graphView(db: Db, opts: GraphViewOptions): GraphView {
  const limit = Math.max(1, Math.min(opts.limit, GRAPH_VIEW_MAX));
  let rows: BrowseRow[];
  let total: number;
  if (opts.around === undefined) {
    rows = db.all<BrowseRow>(`${BROWSE_SELECT} ORDER BY ${RANK} LIMIT ${sqlLimit(limit)}`);
    total = db.one<{ n: number }>("SELECT count(*) AS n FROM entities")?.n ?? 0;
  } else {
    const centre = db.one<BrowseRow>(`${BROWSE_SELECT} WHERE e.name = ?`, opts.around);
    if (!centre) throw new DomainError("NotFound", `Entity "${opts.around}" not found.`);
    const neighbours = `SELECT to_id AS id FROM relations WHERE from_id = ?1 UNION SELECT from_id FROM relations WHERE to_id = ?1`;
    rows = [centre, ...db.all<BrowseRow>(`${BROWSE_SELECT} WHERE e.id IN (${neighbours}) AND e.id <> ?1 ORDER BY ${RANK} LIMIT ${sqlLimit(limit - 1)}`, centre.id)];
    total = 1 + (db.one<{ n: number }>(`SELECT count(*) AS n FROM (${neighbours}) WHERE id <> ?1`, centre.id)?.n ?? 0);
  }
  const ids = JSON.stringify(rows.map((r) => r.id));
  const relations = db.all<{ from_name: string; to_name: string; relation_type: string }>(
    `SELECT f.name AS from_name, t.name AS to_name, r.relation_type FROM relations r
       JOIN entities f ON f.id = r.from_id JOIN entities t ON t.id = r.to_id
     WHERE r.from_id IN (SELECT value FROM json_each(?1)) AND r.to_id IN (SELECT value FROM json_each(?1)) ORDER BY r.id`,
    ids,
  );
  return {
    entities: rows.map(toBrowsed),
    relations: relations.map((r) => ({ from: r.from_name, to: r.to_name, relationType: r.relation_type })),
    total,
  };
}
