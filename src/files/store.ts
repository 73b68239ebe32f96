/**
 * The file-style memory's storage: all SQL on the `files` table.
 *
 * ## Storage layout
 * `files(id, path UNIQUE, content, created_at, updated_at)`
 * (migrations/0004_files_covisit.sql). Directories are implicit: `notes` is a
 * directory while some file's path starts with `notes/`.
 *
 * ## Mutation primitives (recorded)
 * Every change to a file goes through exactly three functions, and each
 * notes its inverse with the change's recorder (src/history) in the same
 * transaction, under the item `file:<path>`:
 *
 *   writeFile(w, path, content) → the prior row or null   op {kind:"file", path, prior}
 *   deleteFile(w, path)         → the prior row or null   op {kind:"file", path, prior, deleted}
 *   moveFile(w, from, to)       → true if a file moved    op {kind:"fileMove", from, to, updatedAt}
 *
 * A `file` op puts `path` back as `prior` (null: no file there); a
 * `fileMove` op moves the file back with its old `updated_at`. The undo
 * appliers (./inverse.ts) replay them through these same functions, passing
 * the prior row so id and times come back exactly. The primitives do not
 * validate: callers pass canonical paths (src/files/path.ts) and check sizes
 * and conflicts first.
 */
import { chunksFor, placeholders, type Db } from "../storage/sql";
import type { WriteScope } from "../history";
import { classifyFile } from "../items";
import { itemKey, STATS_COLUMNS, statsOf, statsPlaceholders, statsValues, type ItemStats, type StatsRow } from "../items";

export interface FileRow extends StatsRow, Record<string, SqlStorageValue> {
  id: number;
  path: string;
  content: string;
  created_at: number;
  updated_at: number;
}

/**
 * A file's row as an inverse op keeps it. `content` is the text, or with
 * `base64` its UTF-8 bytes in base64: a file of quotes or control characters
 * would grow up to six-fold as JSON, past the 2 MB a history row may hold,
 * and then the write (or delete) it records could not happen at all.
 */
export type FilePrior = { id: number; content: string; base64?: true; createdAt: number; updatedAt: number; stats?: ItemStats };
export type FileOp = { kind: "file"; path: string; prior: FilePrior | null; deleted?: true };
export type FileMoveOp = { kind: "fileMove"; from: string; to: string; updatedAt: number };
/** The files' inverse ops, by kind. */
export type FilesOp = FileOp | FileMoveOp;

/** Bytes of escaped JSON past which content is kept in base64 (at most 4/3 of the 1 MB a file holds). */
const PLAIN_JSON_MAX_BYTES = 1536 * 1024;

function priorOf(r: FileRow): FilePrior {
  const times = { id: r.id, createdAt: r.created_at, updatedAt: r.updated_at, stats: statsOf(r) };
  // Cheap bound first: escaping at most sextuples a character, UTF-8 at most triples it.
  if (r.content.length * 6 <= PLAIN_JSON_MAX_BYTES) return { ...times, content: r.content };
  if (Buffer.byteLength(JSON.stringify(r.content)) <= PLAIN_JSON_MAX_BYTES) return { ...times, content: r.content };
  return { ...times, content: Buffer.from(r.content, "utf8").toString("base64"), base64: true };
}

/** The text a FilePrior holds. */
export const priorContent = (p: FilePrior): string => (p.base64 ? Buffer.from(p.content, "base64").toString("utf8") : p.content);

/** The range of paths under directory `dir` ("" = everything): `${dir}/` ≤ path < `${dir}0` ('0' follows '/'). */
function under(dir: string): [string, string] | null {
  return dir === "" ? null : [`${dir}/`, `${dir}0`];
}

export function readFile(db: Db, path: string): FileRow | undefined {
  return db.one<FileRow>(`SELECT id, path, content, created_at, updated_at, ${STATS_COLUMNS} FROM files WHERE path = ?`, path);
}

/**
 * Creates or replaces the file at `path`; returns what was there before, or
 * null. `restore` (undo) puts a prior row back: its id when still free, and
 * its times instead of now; a file it brings back gets its old priority
 * columns too (use, category, mark, tier). Every content write sets the
 * category the classifier gives the path and new content
 * (src/items/classify.ts); a file's use and mark survive its edits.
 */
export function writeFile(w: WriteScope, path: string, content: string, restore?: FilePrior): FileRow | null {
  const prior = readFile(w.db, path) ?? null;
  const freeId = restore && !w.db.one("SELECT 1 AS taken FROM files WHERE id = ?", restore.id) ? restore.id : null;
  w.db.run(
    `INSERT INTO files (id, path, content, created_at, updated_at, ${STATS_COLUMNS})
     VALUES (?1, ?2, ?3, ?4, ?5, ${statsPlaceholders(7)})
     ON CONFLICT (path) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at, category = excluded.category,
       created_at = CASE WHEN ?6 THEN excluded.created_at ELSE files.created_at END`,
    freeId,
    path,
    content,
    restore?.createdAt ?? w.now,
    restore?.updatedAt ?? w.now,
    restore ? 1 : 0,
    ...statsValues(restore?.stats, restore?.stats?.category ?? classifyFile(path, content)),
  );
  w.rec.note(itemKey.file(path), { kind: "file", path, prior: prior && priorOf(prior) } satisfies FileOp);
  return prior;
}

/** Deletes the file at `path`; returns what was there, or null if nothing was. */
export function deleteFile(w: WriteScope, path: string): FileRow | null {
  const prior = readFile(w.db, path) ?? null;
  if (!prior) return null;
  w.db.run("DELETE FROM files WHERE path = ?", path);
  w.rec.note(itemKey.file(path), { kind: "file", path, prior: priorOf(prior), deleted: true } satisfies FileOp);
  return prior;
}

/**
 * Moves the file at `from` to `to` (which must be free), keeping its id,
 * content and creation time; `updatedAt` (undo) instead of now.
 */
export function moveFile(w: WriteScope, from: string, to: string, updatedAt?: number): boolean {
  const prior = readFile(w.db, from);
  if (!prior) return false;
  w.db.run("UPDATE files SET path = ?, updated_at = ? WHERE path = ?", to, updatedAt ?? w.now, from);
  w.rec.note([itemKey.file(from), itemKey.file(to)], { kind: "fileMove", from, to, updatedAt: prior.updated_at } satisfies FileMoveOp);
  return true;
}

/** Files under `dir` ("" = all), in path order, at most `limit`. */
export function listFiles(db: Db, dir: string, limit: number): string[] {
  const range = under(dir);
  const rows = range
    ? db.all<{ path: string }>("SELECT path FROM files WHERE path >= ? AND path < ? ORDER BY path LIMIT ?", ...range, limit)
    : db.all<{ path: string }>("SELECT path FROM files ORDER BY path LIMIT ?", limit);
  return rows.map((r) => r.path);
}

/** How many files lie under `dir` ("" = all). */
export function countFiles(db: Db, dir: string): number {
  const range = under(dir);
  const row = range
    ? db.one<{ n: number }>("SELECT COUNT(*) AS n FROM files WHERE path >= ? AND path < ?", ...range)
    : db.one<{ n: number }>("SELECT COUNT(*) AS n FROM files");
  return row?.n ?? 0;
}

/** Whether `dir` is a directory, i.e. some file lies under it. */
export function isDirectory(db: Db, dir: string): boolean {
  const range = under(dir);
  if (!range) return true;
  return db.one("SELECT 1 AS x FROM files WHERE path >= ? AND path < ? LIMIT 1", ...range) !== undefined;
}

/** The subset of `paths` that are files. */
export function existingFiles(db: Db, paths: readonly string[]): Set<string> {
  const found = new Set<string>();
  for (const chunk of chunksFor([...new Set(paths)])) {
    const rows = db.all<{ path: string }>(`SELECT path FROM files WHERE path IN (${placeholders(chunk.length)})`, ...chunk);
    for (const r of rows) found.add(r.path);
  }
  return found;
}
