/**
 * Working memory: a tree of markdown documents per context, grown from one
 * root by [[id]] links (see docs/documents.md).
 *
 * ## Lifecycle
 * The root exists from the start for whoever reads: until the first write
 * stores it, reads serve the configured template without storing anything
 * (a read changes nothing, even in a read-only context), and search finds
 * only what is stored. The first update that changes it creates its row
 * from the template, inside that write's transaction. A document is created only by a link
 * from its parent and deleted only when that link goes away, together with
 * its whole subtree.
 *
 * ## Invariants
 * - A document's links are exactly its children (src/documents/integrity.ts
 *   checks an update before anything is written).
 * - Every function runs inside the caller's transaction; a DomainError
 *   rolls back all of it.
 * - An update is one change in history, whatever it created and removed:
 *   the primitives (./rows.ts) note each row's inverse, so undo restores a
 *   removed subtree and removes created children (./inverse.ts).
 */
import { NO_MATCH_NOTE, NO_TERMS_NOTE, type TextBoost, type TextQuery } from "../items";
import type { Db } from "../storage/sql";
import { DomainError } from "../errors";
import type { WriteScope } from "../history";
import { LIMITS } from "../limits";
import { planUpdate } from "./integrity";
import { findDocuments, type DocumentHit } from "./search";
import { ROOT_ID, childTemplate, titleOf, utf8Bytes } from "./links";
import { deleteDocument, ensureRoot, getDocument, putDocument, subtreeByLevel, treeRows, type TreeRow } from "./rows";

export interface DocumentOptions {
  /** Content of the root when it is first created (ROOT_TEMPLATE). */
  rootTemplate: string;
  /** Links a document may be below the root at most (DOCUMENT_MAX_DEPTH). */
  maxDepth: number;
}

export interface UpdateResult {
  /** Children created by new links, in link order. */
  created: string[];
  /** Documents deleted because their link went away: each orphan, then its descendants level by level. */
  removed: string[];
  /** The document already held exactly this content, so nothing was written or recorded. */
  unchanged?: true;
}

export interface TreeNode {
  id: string;
  title: string;
  children: TreeNode[];
}

const notFound = (id: string, hint = "") => new DomainError("NotFound", `${id}: not found${hint}`);

/** `id`'s content; the root before its first write is the template (see the lifecycle). */
export function readDocument(db: Db, id: string, opts: DocumentOptions): { id: string; content: string } {
  const row = getDocument(db, id);
  if (row) return { id, content: row.content };
  if (id === ROOT_ID) return { id, content: opts.rootTemplate };
  throw notFound(id);
}

/**
 * Replaces `id`'s content as one recorded change: its new children and
 * removed subtrees included. Content equal to what `id` holds (for the root
 * before its first write, the template reads serve) writes and records
 * nothing, so undo is not spent on it. The title derives from the content
 * and the parent never changes here, so equal content is the whole no-op.
 */
export function updateDocument(w: WriteScope, id: string, content: string, opts: DocumentOptions): UpdateResult {
  const db = w.db;
  const bytes = utf8Bytes(content);
  if (bytes > LIMITS.documentBytes) {
    throw new DomainError("TooLarge", `content is ${bytes} bytes; a document may be at most ${LIMITS.documentBytes} bytes`);
  }
  const row = getDocument(db, id);
  if (!row && id !== ROOT_ID) throw notFound(id, `. A document is created by linking [[${id}]] from its parent.`);
  if (content === (row?.content ?? opts.rootTemplate)) return { created: [], removed: [], unchanged: true };
  ensureRoot(db, opts.rootTemplate, w.now);

  const plan = planUpdate(db, id, content, opts.maxDepth);
  // Only the root can be unstored here, and it has no parent.
  putDocument(w, id, content, row ? row.parent_id : null);
  for (const child of plan.create) putDocument(w, child, childTemplate(child), id);
  const removed: string[] = [];
  for (const orphan of plan.orphans) {
    const subtree = subtreeByLevel(db, orphan);
    // Deepest first, so no document is ever left without its parent.
    for (const doc of [...subtree].reverse()) deleteDocument(w, doc);
    removed.push(...subtree);
  }
  return { created: plan.create, removed };
}

/** The whole hierarchy from the root, children in the order their parent links them. */
export function documentTree(db: Db, opts: DocumentOptions): { root: TreeNode; count: number } {
  const stored = treeRows(db);
  const rows = stored.some((r) => r.id === ROOT_ID) ? stored : [{ id: ROOT_ID, parent_id: null, title: titleOf(opts.rootTemplate), pos: 0 }, ...stored];
  const byParent = new Map<string, TreeRow[]>();
  for (const r of rows) {
    if (r.parent_id === null) continue;
    const siblings = byParent.get(r.parent_id) ?? [];
    siblings.push(r);
    byParent.set(r.parent_id, siblings);
  }
  const build = (id: string, title: string): TreeNode => ({
    id,
    title,
    children: (byParent.get(id) ?? []).sort((a, b) => a.pos - b.pos).map((c) => build(c.id, c.title)),
  });
  const root = rows.find((r) => r.id === ROOT_ID) as TreeRow;
  return { root: build(root.id, root.title), count: rows.length };
}

/** search_documents' answer: the hits, and a note when there are none. */
export interface DocumentSearch {
  results: DocumentHit[];
  note?: string;
}

/** Documents matching `query`, best first under BM25F × `boost` (see ./search.ts for the query rules). Reading stores nothing. */
export function searchDocuments(db: Db, query: TextQuery, limit: number, boost: TextBoost): DocumentSearch {
  if (!query.terms.some((t) => t.index >= 0)) return { results: [], note: NO_TERMS_NOTE };
  const results = findDocuments(db, query, limit, boost);
  return results.length > 0 ? { results } : { results, note: NO_MATCH_NOTE };
}
