/**
 * The file-style memory's six commands, with the command set of Anthropic's
 * memory tool: view, create, str_replace, insert, delete, rename.
 *
 * Each command validates everything before it writes, then changes files
 * only through the primitives in ./store (writeFile, deleteFile, moveFile),
 * which record each change for history and undo.
 * A failure is a DomainError naming the path and the problem; thrown inside
 * MemoryContext's transaction it rolls back the whole call.
 *
 * Each command also says what it did to which items (`effects`), so
 * MemoryContext can report it to the access hook (src/context/access.ts):
 * views and writes are accesses, deletions forget items, renames carry them.
 */
import { DomainError } from "../errors";
import { LIMITS } from "../limits";
import { itemKey, type ItemEffects } from "../items";
import type { Db } from "../storage/sql";
import type { WriteScope } from "../history";
import { ancestors, displayPath, normalisePath } from "./path";
import { countFiles, deleteFile, isDirectory, listFiles, moveFile, readFile, writeFile } from "./store";
import { insertAfterLine, lineAt, lineCount, occurrences, utf8Bytes } from "./text";
import { renderFile, renderTree } from "./view";

export interface FileResult<T> {
  value: T;
  effects: ItemEffects;
}

const NONE: ItemEffects = { accesses: [], removed: [], moved: [] };

/** Files a tree view reads at most; more are counted and named in the truncation note. */
const TREE_MAX_FILES = 8192;

const nLines = (n: number) => `${n} ${n === 1 ? "line" : "lines"}`;

const fail = (kind: "NotFound" | "Invalid" | "Conflict" | "TooLarge", message: string) => new DomainError(kind, message);

function requireFileContent(db: Db, path: string): string {
  const file = readFile(db, path);
  if (file) return file.content;
  if (path === "" || isDirectory(db, path)) {
    throw fail("Invalid", `${displayPath(path, true)} is a directory; this command edits a file.`);
  }
  throw fail("NotFound", `No file at ${path}. Use view / to list files, or create to make it.`);
}

function requireSize(path: string, content: string): void {
  const bytes = utf8Bytes(content);
  if (bytes > LIMITS.fileBytes) {
    throw fail("TooLarge", `${path} would be ${bytes} bytes; a file holds at most ${LIMITS.fileBytes} bytes (1 MB). Split it into several files.`);
  }
}

/** A new file may go at `path` only if no directory is there and no file sits where its directories go. */
function requireRoomFor(db: Db, path: string, field: string): void {
  if (isDirectory(db, path)) throw fail("Conflict", `${field} ${path} is a directory.`);
  for (const dir of ancestors(path)) {
    if (readFile(db, dir)) throw fail("Conflict", `${field} ${path}: ${dir} is a file, so it cannot contain other files.`);
  }
}

export type ViewValue =
  | { path: string; type: "file"; text: string; lines: { from: number; to: number; total: number }; truncated: boolean }
  | { path: string; type: "directory"; text: string; files: number; truncated: boolean };

export function view(db: Db, rawPath: string, viewRange?: readonly number[]): FileResult<ViewValue> {
  const path = normalisePath(rawPath);
  const file = path === "" ? undefined : readFile(db, path);
  if (file) {
    const v = renderFile(path, file.content, viewRange);
    return {
      value: { path, type: "file", ...v },
      effects: { ...NONE, accesses: [{ item: itemKey.file(path), kind: "view" }] },
    };
  }
  const total = countFiles(db, path);
  if (path !== "" && total === 0) throw fail("NotFound", `No file or directory at ${path}. Use view / to list what exists.`);
  if (viewRange) throw fail("Invalid", `view_range applies to files; ${displayPath(path, true)} is a directory.`);
  const tree = renderTree(path, listFiles(db, path, TREE_MAX_FILES), total);
  return { value: { path: displayPath(path, true), type: "directory", files: total, ...tree }, effects: NONE };
}

type EntryType = "file" | "directory";
/** `unchanged`: the file already held exactly this content, so nothing was written or recorded. */
export type CreateValue = { path: string; created: boolean; lines: number; bytes: number; unchanged?: true };
export type StrReplaceValue = { path: string; line: number; lines: number };
export type InsertValue = { path: string; insert_line: number; linesInserted: number; lines: number };
export type RemoveValue = { path: string; type: EntryType; filesDeleted: number };
export type RenameValue = { old_path: string; new_path: string; type: EntryType; filesMoved: number };

export function create(w: WriteScope, rawPath: string, content: string, overwrite: boolean): FileResult<CreateValue> {
  const path = normalisePath(rawPath, "path", "create");
  if (path === "") throw fail("Invalid", "path must name a file, not the memory root (e.g. notes/todo.md).");
  requireSize(path, content);
  const existing = readFile(w.db, path);
  if (existing && !overwrite) {
    throw fail(
      "Conflict",
      `${path} already exists (${nLines(lineCount(existing.content))}). Pass overwrite: true to replace it, or edit it with str_replace or insert.`,
    );
  }
  // Writing the same content again changes nothing, so it leaves no change for undo to spend.
  if (existing?.content === content) {
    return { value: { path, created: false, lines: lineCount(content), bytes: utf8Bytes(content), unchanged: true }, effects: NONE };
  }
  if (!existing) requireRoomFor(w.db, path, "path");
  writeFile(w, path, content);
  return {
    value: { path, created: !existing, lines: lineCount(content), bytes: utf8Bytes(content) },
    effects: { ...NONE, accesses: [{ item: itemKey.file(path), kind: "write" }] },
  };
}

export function strReplace(w: WriteScope, rawPath: string, oldStr: string, newStr: string): FileResult<StrReplaceValue> {
  const path = normalisePath(rawPath);
  const content = requireFileContent(w.db, path);
  const hits = occurrences(content, oldStr);
  if (hits.length === 0) {
    throw fail("NotFound", `old_str was not found in ${path} (0 occurrences). View the file and copy the text exactly, whitespace included.`);
  }
  if (hits.length > 1) {
    const lines = [...new Set(hits.map((i) => lineAt(content, i)))];
    const where = lines.slice(0, 10).join(", ") + (lines.length > 10 ? ", …" : "");
    const count = hits.length >= 50 ? "at least 50" : String(hits.length);
    throw fail(
      "Conflict",
      `old_str occurs ${count} times in ${path} (lines ${where}); include more surrounding text so it matches exactly once. Nothing was changed.`,
    );
  }
  if (oldStr === newStr) throw fail("Invalid", `new_str is the same as old_str in ${path}; nothing was changed.`);
  const at = hits[0] ?? 0;
  const next = content.slice(0, at) + newStr + content.slice(at + oldStr.length);
  requireSize(path, next);
  writeFile(w, path, next);
  return {
    value: { path, line: lineAt(content, at), lines: lineCount(next) },
    effects: { ...NONE, accesses: [{ item: itemKey.file(path), kind: "write" }] },
  };
}

export function insert(w: WriteScope, rawPath: string, after: number, text: string): FileResult<InsertValue> {
  const path = normalisePath(rawPath);
  const content = requireFileContent(w.db, path);
  const total = lineCount(content);
  if (after > total) {
    throw fail("Invalid", `insert_line ${after} is past the end of ${path} (${nLines(total)}); use 0 to ${total}.`);
  }
  const next = insertAfterLine(content, after, text);
  requireSize(path, next);
  writeFile(w, path, next);
  const lines = lineCount(next);
  return {
    value: { path, insert_line: after, linesInserted: lines - total, lines },
    effects: { ...NONE, accesses: [{ item: itemKey.file(path), kind: "write" }] },
  };
}

export function remove(w: WriteScope, rawPath: string): FileResult<RemoveValue> {
  const path = normalisePath(rawPath);
  if (path === "") throw fail("Invalid", "Refusing to delete the memory root; delete the files or directories inside it.");
  if (deleteFile(w, path)) {
    return { value: { path, type: "file", filesDeleted: 1 }, effects: { ...NONE, removed: [itemKey.file(path)] } };
  }
  const paths = listFiles(w.db, path, Number.MAX_SAFE_INTEGER);
  if (paths.length === 0) throw fail("NotFound", `No file or directory at ${path}. Nothing was deleted.`);
  for (const p of paths) deleteFile(w, p);
  return {
    value: { path: displayPath(path, true), type: "directory", filesDeleted: paths.length },
    effects: { ...NONE, removed: paths.map(itemKey.file) },
  };
}

export function rename(w: WriteScope, rawOld: string, rawNew: string): FileResult<RenameValue> {
  const from = normalisePath(rawOld, "old_path");
  const to = normalisePath(rawNew, "new_path", "create");
  if (from === "" || to === "") throw fail("Invalid", "The memory root cannot be renamed, and nothing can be renamed to it.");
  if (from === to) throw fail("Invalid", `old_path and new_path are the same (${from}).`);
  if (readFile(w.db, to)) throw fail("Conflict", `new_path ${to} already exists; delete it first or choose another name.`);
  requireRoomFor(w.db, to, "new_path");

  if (readFile(w.db, from)) {
    moveFile(w, from, to);
    const move = { from: itemKey.file(from), to: itemKey.file(to) };
    return {
      value: { old_path: from, new_path: to, type: "file", filesMoved: 1 },
      effects: { ...NONE, moved: [move], accesses: [{ item: move.to, kind: "write" }] },
    };
  }
  const paths = listFiles(w.db, from, Number.MAX_SAFE_INTEGER);
  if (paths.length === 0) throw fail("NotFound", `No file or directory at old_path ${from}. Nothing was renamed.`);
  if (to.startsWith(`${from}/`)) throw fail("Invalid", `Cannot move directory ${from}/ inside itself (${to}/).`);
  const moves = paths.map((p) => ({ from: p, to: to + p.slice(from.length) }));
  const tooLong = moves.find((m) => m.to.length > LIMITS.filePath);
  if (tooLong) {
    throw fail("Invalid", `Renaming would make ${tooLong.to.slice(0, 60)}… longer than ${LIMITS.filePath} characters. Nothing was renamed.`);
  }
  for (const m of moves) moveFile(w, m.from, m.to);
  // Moving a directory carries its files' associations but is not a use of each file.
  return {
    value: { old_path: displayPath(from, true), new_path: displayPath(to, true), type: "directory", filesMoved: moves.length },
    effects: { ...NONE, moved: moves.map((m) => ({ from: itemKey.file(m.from), to: itemKey.file(m.to) })) },
  };
}
