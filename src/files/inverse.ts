/**
 * How the file memory's inverse ops (noted by the primitives in ./store.ts)
 * are undone and described; registered with history in MemoryContext.
 *
 * Each applier replays through the same recorded primitives, so an undo is
 * itself a change that can be undone, and it puts rows back exactly: id,
 * content and times. An op whose target is already in the wanted state does
 * nothing. An op that cannot apply (the place a file must return to is
 * taken, or the file to move back is gone) throws a Conflict, which rolls
 * the whole undo back. History's closure (src/history/undo.ts) normally
 * prevents both; the checks guard what history cannot see.
 *
 * ## Co-visitation
 * A file an undo deletes is forgotten, and one it moves back takes its
 * associations along, exactly as when the delete and rename tools do it
 * (src/context/access.ts). A file an undo restores comes back without the
 * associations its deletion dropped: they regrow with use.
 */
import { itemKey } from "../items";
import type { Db } from "../storage/sql";
import { DomainError } from "../errors";
import type { InverseKind, InverseKinds, Phrase } from "../history";
import { ancestors } from "./path";
import { deleteFile, isDirectory, moveFile, priorContent, readFile, writeFile, type FileMoveOp, type FileOp, type FilesOp } from "./store";

const conflict = (message: string) => new DomainError("Conflict", `${message}; nothing was undone.`);

/** Why no file can be put at `path` now, or undefined when it can. */
function blocked(db: Db, path: string): string | undefined {
  if (isDirectory(db, path)) return `${path} is a directory now`;
  const file = ancestors(path).find((dir) => readFile(db, dir));
  return file === undefined ? undefined : `${file} is a file now, so it cannot contain ${path}`;
}

const file: InverseKind<FileOp> = {
  apply(w, op) {
    const current = readFile(w.db, op.path);
    if (op.prior === null) {
      if (!current) return;
      deleteFile(w, op.path);
      w.items.removed([itemKey.file(op.path)]);
      return;
    }
    const why = current ? undefined : blocked(w.db, op.path);
    if (why) throw conflict(`${why}, so file ${op.path} cannot be restored`);
    writeFile(w, op.path, priorContent(op.prior), op.prior);
  },
  describe: (op): Phrase => {
    return { action: op.deleted ? "-" : op.prior === null ? "+" : "~", noun: "file", name: op.path };
  },
};

const fileMove: InverseKind<FileMoveOp> = {
  apply(w, op) {
    if (!readFile(w.db, op.to)) throw conflict(`${op.to} no longer exists, so it cannot be moved back to ${op.from}`);
    const why = readFile(w.db, op.from) ? `${op.from} exists again` : blocked(w.db, op.from);
    if (why) throw conflict(`${why}, so ${op.to} cannot be moved back to ${op.from}`);
    moveFile(w, op.to, op.from, op.updatedAt);
    w.items.moved([{ from: itemKey.file(op.to), to: itemKey.file(op.from) }]);
  },
  describe: (op): Phrase => {
    return { action: "~", noun: "file", name: `${op.from} -> ${op.to}` };
  },
};

/** Registration order is the order summaries list them in. */
export const fileInverses: InverseKinds<FilesOp> = { file, fileMove };
