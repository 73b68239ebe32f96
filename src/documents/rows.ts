/**
 * The documents table: the only module that writes it.
 *
 * ## Mutation primitives (recorded)
 * Every change to a document goes through `putDocument` or `deleteDocument`:
 * both return the row as it was before and note its inverse with the
 * change's recorder (src/history) under the item `doc:<id>`:
 *
 *   {kind:"document", id, prior, deleted?}   prior null = the document was created
 *
 * The undo appliers (./inverse.ts) replay ops through these same functions,
 * passing the prior row so seq (the FTS rowid), parent and times come back
 * exactly. `ensureRoot` is not a mutation in that sense and is not recorded:
 * the root exists from the start (reads serve the template until a write
 * stores it: ./store.ts), and a write creating its row lazily is how the
 * configured template gets in.
 *
 * ## Invariants
 * - Derived columns (title, search_cjk) are computed here from content, so
 *   they can never disagree with it; the FTS index follows through triggers.
 * - These functions do not check tree integrity; src/documents/integrity.ts
 *   does, before the store calls them.
 */
import { chunksFor, placeholders, type Db } from "../storage/sql";
import type { WriteScope } from "../history";
import { classifyDocument } from "../items";
import { itemKey, STATS_COLUMNS, statsOf, statsPlaceholders, statsValues, type ItemStats, type StatsRow } from "../items";
import { cjkIndexText } from "./cjk";
import { ROOT_ID, titleOf } from "./links";

export interface DocumentRow extends StatsRow, Record<string, SqlStorageValue> {
  seq: number;
  id: string;
  parent_id: string | null;
  title: string;
  content: string;
  created_at: number;
  updated_at: number;
}

const COLUMNS = `seq, id, parent_id, title, content, created_at, updated_at, ${STATS_COLUMNS}`;

/**
 * A document's row as an inverse op keeps it (title and search text are
 * derived from content), with its priority columns (absent in ops recorded
 * before they existed).
 */
export type DocumentPrior = { seq: number; parent: string | null; content: string; createdAt: number; updatedAt: number; stats?: ItemStats };
export type DocumentOp = { kind: "document"; id: string; prior: DocumentPrior | null; deleted?: true };

const priorOf = (r: DocumentRow): DocumentPrior => ({
  seq: r.seq,
  parent: r.parent_id,
  content: r.content,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  stats: statsOf(r),
});

export function getDocument(db: Db, id: string): DocumentRow | undefined {
  return db.one<DocumentRow>(`SELECT ${COLUMNS} FROM documents WHERE id = ?`, id);
}

/**
 * Creates or replaces document `id` under `parent` (null only for the root).
 * Returns the prior row, or null when the document is new. `restore` (undo)
 * puts a prior row back: its seq when still free, its times instead of now,
 * and for a document it brings back its priority columns (use, category,
 * mark, tier). Every content write sets the category the classifier gives
 * the id, title and new content (src/items/classify.ts): a child starts
 * as `# id`, so its category follows what it is filled with.
 */
export function putDocument(w: WriteScope, id: string, content: string, parent: string | null, restore?: DocumentPrior): DocumentRow | null {
  const prior = getDocument(w.db, id) ?? null;
  const seq = restore && !w.db.one("SELECT 1 AS taken FROM documents WHERE seq = ?", restore.seq) ? restore.seq : null;
  const title = titleOf(content);
  w.db.run(
    `INSERT INTO documents (seq, id, parent_id, title, content, search_cjk, created_at, updated_at, ${STATS_COLUMNS})
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ${statsPlaceholders(10)})
     ON CONFLICT (id) DO UPDATE SET parent_id = ?3, title = ?4, content = ?5, search_cjk = ?6, updated_at = ?8, category = excluded.category,
       created_at = CASE WHEN ?9 THEN ?7 ELSE documents.created_at END`,
    seq,
    id,
    parent,
    title,
    content,
    cjkIndexText(content),
    restore?.createdAt ?? w.now,
    restore?.updatedAt ?? w.now,
    restore ? 1 : 0,
    ...statsValues(restore?.stats, restore?.stats?.category ?? classifyDocument(id, title, content)),
  );
  w.rec.note(itemKey.doc(id), { kind: "document", id, prior: prior && priorOf(prior) } satisfies DocumentOp);
  return prior;
}

/** Deletes document `id` (its children must be gone first). Returns the prior row, or null. */
export function deleteDocument(w: WriteScope, id: string): DocumentRow | null {
  const prior = getDocument(w.db, id) ?? null;
  if (!prior) return null;
  w.db.run("DELETE FROM documents WHERE id = ?", id);
  w.rec.note(itemKey.doc(id), { kind: "document", id, prior: priorOf(prior), deleted: true } satisfies DocumentOp);
  return prior;
}

/** Creates the root with `template` unless it exists; see the module note. */
export function ensureRoot(db: Db, template: string, now: number): void {
  db.run(
    `INSERT INTO documents (id, parent_id, title, content, search_cjk, created_at, updated_at, category)
     VALUES (?1, NULL, ?2, ?3, ?4, ?5, ?5, ?6) ON CONFLICT (id) DO NOTHING`,
    ROOT_ID,
    titleOf(template),
    template,
    cjkIndexText(template),
    now,
    classifyDocument(ROOT_ID, titleOf(template), template),
  );
}

/** `id`'s ancestors, nearest first (parent, grandparent, ..., root). */
export function ancestorsOf(db: Db, id: string): string[] {
  return db
    .all<{ id: string }>(
      `WITH RECURSIVE up(id, parent_id, n) AS (
         SELECT id, parent_id, 0 FROM documents WHERE id = ?
         UNION ALL SELECT d.id, d.parent_id, up.n + 1 FROM documents d JOIN up ON d.id = up.parent_id
       ) SELECT id FROM up WHERE n > 0 ORDER BY n`,
      id,
    )
    .map((r) => r.id);
}

/** The ids of `id`'s children, in the order its content links them. */
export function childrenOf(db: Db, id: string): string[] {
  return db
    .all<{ id: string }>(
      `SELECT d.id FROM documents d JOIN documents p ON p.id = d.parent_id
       WHERE d.parent_id = ? ORDER BY instr(p.content, '[[' || d.id || ']]'), d.id`,
      id,
    )
    .map((r) => r.id);
}

/** id -> parent_id for those of `ids` that exist. */
export function parentsOf(db: Db, ids: readonly string[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const chunk of chunksFor(ids)) {
    const rows = db.all<{ id: string; parent_id: string | null }>(`SELECT id, parent_id FROM documents WHERE id IN (${placeholders(chunk.length)})`, ...chunk);
    for (const r of rows) out.set(r.id, r.parent_id);
  }
  return out;
}

/** `id` and everything below it, level by level (ids sorted within a level); reversed, children come before parents. */
export function subtreeByLevel(db: Db, id: string): string[] {
  return db
    .all<{ id: string }>(
      `WITH RECURSIVE down(id, n) AS (
         SELECT id, 0 FROM documents WHERE id = ?
         UNION ALL SELECT d.id, down.n + 1 FROM documents d JOIN down ON d.parent_id = down.id
       ) SELECT id FROM down ORDER BY n, id`,
      id,
    )
    .map((r) => r.id);
}

export interface TreeRow extends Record<string, SqlStorageValue> {
  id: string;
  parent_id: string | null;
  title: string;
  /** Where the parent's content first links this document (1-based; 0 if it does not). */
  pos: number;
}

/** Every document with its place among its siblings: the order of the parent's links. */
export function treeRows(db: Db): TreeRow[] {
  return db.all<TreeRow>(
    `SELECT d.id, d.parent_id, d.title, COALESCE(instr(p.content, '[[' || d.id || ']]'), 0) AS pos
     FROM documents d LEFT JOIN documents p ON p.id = d.parent_id`,
  );
}
