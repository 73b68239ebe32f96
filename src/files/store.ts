/**
 * The file-style memory's storage: all SQL on the `files` table.
 *
 * ## Storage layout
 * `files(id, path UNIQUE, content, created_at, updated_at)`
 * (migrations/0004_files_covisit.sql). Directories are implicit: `notes` is a
 * directory while some file's path starts with `notes/`.
 *
 * ## Mutation primitives
 * Every change to a file goes through exactly three functions, so history
 * (undo) can note each change with its inverse in one place:
 *
 *   writeFile(w, path, content) → the prior row or null   (inverse: write prior back, or delete)
 *   deleteFile(w, path)         → the prior row or null   (inverse: write prior back)
 *   moveFile(w, from, to)       → true if a file moved    (inverse: move back)
 *
 * They take a `FileScope` (`{db, now}`), the part of history's write scope
 * they need today. They do not validate: callers pass canonical paths
 * (src/files/path.ts) and check sizes and conflicts first.
 */
import { chunksFor, placeholders, type Db } from "../context/sql";

export interface FileRow extends Record<string, SqlStorageValue> {
  path: string;
  content: string;
  created_at: number;
  updated_at: number;
}

/** What a mutation primitive writes through. */
export interface FileScope {
  db: Db;
  now: number;
}

/** The range of paths under directory `dir` ("" = everything): `dir/` ≤ path < `dir0` ('0' follows '/'). */
function under(dir: string): [string, string] | null {
  return dir === "" ? null : [`${dir}/`, `${dir}0`];
}

export function readFile(db: Db, path: string): FileRow | undefined {
  return db.one<FileRow>("SELECT path, content, created_at, updated_at FROM files WHERE path = ?", path);
}

/** Creates or replaces the file at `path`; returns what was there before, or null. */
export function writeFile(w: FileScope, path: string, content: string): FileRow | null {
  const prior = readFile(w.db, path) ?? null;
  w.db.run(
    `INSERT INTO files (path, content, created_at, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (path) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at`,
    path,
    content,
    w.now,
    w.now,
  );
  return prior;
}

/** Deletes the file at `path`; returns what was there, or null if nothing was. */
export function deleteFile(w: FileScope, path: string): FileRow | null {
  const prior = readFile(w.db, path) ?? null;
  if (prior) w.db.run("DELETE FROM files WHERE path = ?", path);
  return prior;
}

/** Moves the file at `from` to `to` (which must be free), keeping its content and creation time. */
export function moveFile(w: FileScope, from: string, to: string): boolean {
  return w.db.run("UPDATE files SET path = ?, updated_at = ? WHERE path = ?", to, w.now, from) > 0;
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
