/**
 * How working memory's inverse ops (noted by putDocument / deleteDocument in
 * ./rows.ts) are undone and described; registered with history in
 * MemoryContext.
 *
 * An update is one change holding, in write order, the document's prior
 * content, each child it created (prior null) and each document of a removed
 * subtree (deepest first). Undo replays them newest first, so a removed
 * subtree comes back parents before children, created children go, and the
 * document gets its old content back: links and parent rows agree again. The
 * FTS index follows through its triggers; seq (its rowid) and times are put
 * back exactly.
 *
 * An op whose target is already in the wanted state does nothing. One that
 * would break the tree (removing a document that has children now, restoring
 * one whose parent is gone or that hangs elsewhere now) throws a Conflict,
 * which rolls the whole undo back. History's closure (src/history/undo.ts)
 * normally prevents these, since every change to a link touches the item of
 * the document holding it; the checks guard what history cannot see.
 *
 * ## Co-visitation
 * A document an undo deletes is forgotten, as when update_document removes
 * it (src/context/access.ts); one it restores comes back without the
 * associations its removal dropped.
 */
import { itemKey } from "../items";
import { DomainError } from "../errors";
import type { InverseKind, InverseKinds, Phrase } from "../history";
import { childrenOf, deleteDocument, getDocument, putDocument, type DocumentOp } from "./rows";

const conflict = (message: string) => new DomainError("Conflict", `${message}; nothing was undone.`);

const document: InverseKind<DocumentOp> = {
  apply(w, op) {
    const current = getDocument(w.db, op.id);
    if (op.prior === null) {
      if (!current) return;
      const children = childrenOf(w.db, op.id);
      if (children.length > 0) {
        throw conflict(`document "${op.id}" has child documents now (${children.slice(0, 5).join(", ")}), so its creation cannot be undone`);
      }
      deleteDocument(w, op.id);
      w.items.removed([itemKey.doc(op.id)]);
      return;
    }
    const { parent } = op.prior;
    if (current && current.parent_id !== parent) {
      throw conflict(`document "${op.id}" now hangs under "${current.parent_id}", not "${parent}", so it cannot be restored`);
    }
    if (parent !== null && !getDocument(w.db, parent)) {
      throw conflict(`document "${parent}" no longer exists, so its child "${op.id}" cannot be restored`);
    }
    putDocument(w, op.id, op.prior.content, parent, op.prior);
  },
  describe: (op): Phrase => {
    return { action: op.deleted ? "-" : op.prior === null ? "+" : "~", noun: "doc", name: op.id };
  },
};

export const documentInverses: InverseKinds<DocumentOp> = { document };
