/**
 * The documents tools as a MemoryContext call runs them (./store.ts does the
 * work): each returns its value and what it did to items (`effects`), for
 * the access hook (src/context/access.ts). Reading a document views it; an
 * update writes it and its new children and removes the subtrees it
 * unlinked (one that changes nothing is no access); each search hit counts as a search. The tree lists every
 * document without showing any, so it is not an access.
 */
import type { WriteScope } from "../history";
import { accessed, itemKey, type TextBoost, type TextQuery, type WithEffects } from "../items";
import type { Db } from "../storage/sql";
import { documentTree, readDocument, searchDocuments, updateDocument, type DocumentOptions, type DocumentSearch, type TreeNode, type UpdateResult } from "./store";

export type { DocumentSearch, TreeNode, UpdateResult };

/** The options the deployment's settings give (ROOT_TEMPLATE, DOCUMENT_MAX_DEPTH). */
export const options = (s: { ROOT_TEMPLATE: string; DOCUMENT_MAX_DEPTH: number }): DocumentOptions => ({
  rootTemplate: s.ROOT_TEMPLATE,
  maxDepth: s.DOCUMENT_MAX_DEPTH,
});

export const read = (db: Db, id: string, opts: DocumentOptions): WithEffects<{ id: string; content: string }> => ({
  value: readDocument(db, id, opts),
  effects: accessed([itemKey.doc(id)], "view"),
});

export function update(w: WriteScope, id: string, content: string, opts: DocumentOptions): WithEffects<UpdateResult> {
  const result = updateDocument(w, id, content, opts);
  // An update that changed nothing is no access, as for a file created again with its own content.
  const written = result.unchanged ? [] : [id, ...result.created];
  return { value: result, effects: { ...accessed(written.map(itemKey.doc), "write"), removed: result.removed.map(itemKey.doc) } };
}

export const tree = (db: Db, opts: DocumentOptions): { value: { root: TreeNode; count: number } } => ({ value: documentTree(db, opts) });

export function search(db: Db, query: TextQuery, limit: number, boost: TextBoost): WithEffects<DocumentSearch> {
  const found = searchDocuments(db, query, limit, boost);
  return {
    value: found,
    effects: accessed(
      found.results.map((h) => itemKey.doc(h.id)),
      "search",
    ),
  };
}
