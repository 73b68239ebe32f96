/**
 * File paths of the file-style memory: how what an agent types becomes the
 * one canonical path stored and keyed (`file:<path>`).
 *
 * ## Invariants
 * - A canonical path has no leading, trailing or repeated "/", and no "." or
 *   ".." segments; "" is the memory root. Paths are case-sensitive.
 * - Nothing can name a place outside the memory root: ".." segments are
 *   rejected (not resolved), and so is anything that only makes sense as a
 *   host path (backslashes, drive letters, "~", URLs). A leading "/" means
 *   the memory root, as in Anthropic's memory tool.
 * - NUL and other control characters never reach storage.
 * - A path that names a new file or directory (create, rename's new_path)
 *   also follows the name rule of src/text.ts (no invisible, bidirectional
 *   control or line-separator characters outside emoji and joining scripts),
 *   and no segment of it may be blank: `" / "` is
 *   refused, not trimmed, so the path stored is the path typed. Paths that
 *   refer to what exists skip these two checks, so a file stored before them
 *   can still be read, edited and deleted.
 */
import { DomainError } from "../errors";
import { itemRef } from "../items";
import { LIMITS } from "../limits";
import { codePoint, hiddenCharacterProblem, visible } from "../text";

// C0 controls (NUL included), DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const DRIVE = /^[A-Za-z]:/;
const URL_LIKE = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

// JSON escapes C0 controls; `visible` spells out the other hidden characters, so the message shows them.
const quote = (raw: string) => visible(JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw));

const invalid = (field: string, raw: string, why: string) => new DomainError("Invalid", `${field} ${quote(raw)}: ${why}`);

/** Whether a path refers to what exists or names something new (see the invariants). */
export type PathUse = "refer" | "create";

/**
 * The canonical form of `raw`, or a DomainError("Invalid") naming `field` and
 * the problem. `./notes//a.md/` and `/notes/a.md` both become `notes/a.md`.
 */
export function normalisePath(raw: string, field = "path", use: PathUse = "refer"): string {
  if (raw.length === 0) throw invalid(field, raw, "must not be empty; use / for the memory root");
  if (raw.length > LIMITS.filePath) throw invalid(field, raw, `must be at most ${LIMITS.filePath} characters`);
  const control = CONTROL.exec(raw);
  if (control) throw invalid(field, raw, `must not contain NUL or other control characters: ${codePoint(control[0])} at index ${control.index}`);
  if (raw.includes("\\")) {
    throw invalid(field, raw, "must use / between names; backslashes (Windows or UNC host paths) are not allowed");
  }
  if (DRIVE.test(raw)) throw invalid(field, raw, "looks like a Windows drive path; paths are relative to the memory root, e.g. notes/todo.md");
  if (URL_LIKE.test(raw)) throw invalid(field, raw, "must be a path inside the memory, not a URL");
  const segments = raw.split("/").filter((s) => s !== "" && s !== ".");
  if (use === "create") {
    const problem = hiddenCharacterProblem(raw);
    if (problem) throw invalid(field, raw, problem);
    if (raw.trim() === "") throw invalid(field, raw, "must not be blank");
    if (segments.some((s) => s.trim() === "")) throw invalid(field, raw, "has a blank segment (only white space between slashes); name every directory and file");
  }
  if (segments[0] === "~") throw invalid(field, raw, "looks like a home-directory host path; paths are relative to the memory root");
  if (segments.includes("..")) throw invalid(field, raw, '".." is not allowed: paths stay inside the memory root');
  return segments.join("/");
}

/** The directories above `path`, outermost first: `a/b/c.md` → [`a`, `a/b`]. */
export function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

/** How a path is shown to agents: the root as "/", a directory with a trailing "/". */
export function displayPath(path: string, directory: boolean): string {
  if (path === "") return "/";
  return directory ? `${path}/` : path;
}

/**
 * `key` as stored: a file's path in its canonical form (`file:/notes//a.md`
 * is `file:notes/a.md`, as every file tool spells it); other keys unchanged.
 * Throws DomainError("Invalid") naming the key when the path is not a path.
 */
export function canonicalKey(key: string): string {
  const ref = itemRef(key);
  if (ref?.kind !== "file") return key;
  const path = normalisePath(ref.name, `item ${key}:`);
  if (path === "") throw new DomainError("Invalid", `item ${key} names the memory root, not a file`);
  return `file:${path}`;
}
