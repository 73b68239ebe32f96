/**
 * What `view` shows: a file as numbered lines, a directory as a recursive
 * tree. Pure rendering, no storage.
 *
 * ## Invariants
 * - A view's text never exceeds LIMITS.viewChars (plus its closing note);
 *   what is cut is named in a note that says how to see the rest
 *   (view_range for files, a subdirectory for trees).
 * - Line numbers are 1-based and right-aligned: `   1: # My Notes`.
 * - Trees are sorted by name at every level, one space of indentation per
 *   level, directories with a trailing "/".
 */
import { DomainError } from "../errors";
import { LIMITS } from "../limits";
import { displayPath } from "./path";
import { splitLines } from "./text";

export interface FileView {
  text: string;
  /** The lines shown (1-based, inclusive; 0-0 for an empty file) and the file's total. */
  lines: { from: number; to: number; total: number };
  truncated: boolean;
}

const numbered = (n: number, line: string) => `${String(n).padStart(4)}: ${line}`;

/** Resolves `[start, end]` (end -1 = to the end) against a file of `total` lines. */
function range(path: string, total: number, viewRange?: readonly number[]): { from: number; to: number } {
  if (!viewRange) return { from: total === 0 ? 0 : 1, to: total };
  const [start = 1, end = -1] = viewRange;
  if (start < 1) throw new DomainError("Invalid", `view_range start must be at least 1 (got ${start}).`);
  if (end !== -1 && end < start) {
    throw new DomainError("Invalid", `view_range [${start}, ${end}]: end must be -1 (to the end) or at least start.`);
  }
  if (start > total) {
    throw new DomainError("Invalid", `view_range start ${start} is past the end of ${path} (${total} lines).`);
  }
  return { from: start, to: end === -1 ? total : Math.min(end, total) };
}

export function renderFile(path: string, content: string, viewRange?: readonly number[], budget = LIMITS.viewChars): FileView {
  const { lines } = splitLines(content);
  const { from, to } = range(path, lines.length, viewRange);
  if (lines.length === 0) return { text: "(empty file)", lines: { from: 0, to: 0, total: 0 }, truncated: false };
  const out: string[] = [];
  let used = 0;
  let shownTo = from - 1;
  for (let n = from; n <= to; n++) {
    const line = numbered(n, lines[n - 1] ?? "");
    if (used + line.length + 1 > budget) {
      // A single line longer than the whole budget is shown cut, so a view always makes progress.
      if (out.length === 0) {
        out.push(`${line.slice(0, budget)}… [line ${n} cut at ${budget} of ${line.length} characters]`);
        shownTo = n;
      }
      break;
    }
    out.push(line);
    used += line.length + 1;
    shownTo = n;
  }
  const truncated = shownTo < to;
  if (truncated) {
    out.push(`[Showing lines ${from}-${shownTo} of ${lines.length}. View the rest with view_range: [${shownTo + 1}, ${to === lines.length ? -1 : to}]]`);
  }
  return { text: out.join("\n"), lines: { from, to: shownTo, total: lines.length }, truncated };
}

interface Dir {
  dirs: Map<string, Dir>;
  files: Set<string>;
}

function buildTree(base: string, paths: readonly string[]): Dir {
  const root: Dir = { dirs: new Map(), files: new Set() };
  const skip = base === "" ? 0 : base.length + 1;
  for (const path of paths) {
    const parts = path.slice(skip).split("/");
    let node = root;
    for (const dir of parts.slice(0, -1)) {
      let next = node.dirs.get(dir);
      if (!next) node.dirs.set(dir, (next = { dirs: new Map(), files: new Set() }));
      node = next;
    }
    node.files.add(parts[parts.length - 1] ?? "");
  }
  return root;
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Tree lines for `node`, depth-first and sorted by name, stopping once `emit` says the budget is spent. */
function walk(node: Dir, depth: number, emit: (line: string, isFile: boolean) => boolean): boolean {
  const names = [...node.dirs.keys(), ...node.files].sort(byName);
  for (const name of new Set(names)) {
    const sub = node.dirs.get(name);
    if (sub) {
      if (!emit(`${" ".repeat(depth)}${name}/`, false) || !walk(sub, depth + 1, emit)) return false;
    }
    if (node.files.has(name) && !emit(`${" ".repeat(depth)}${name}`, true)) return false;
  }
  return true;
}

/**
 * The tree under directory `dir` from `paths` (the first files under it, in
 * path order) when `total` files lie there in all.
 */
export function renderTree(dir: string, paths: readonly string[], total: number, budget = LIMITS.viewChars): { text: string; truncated: boolean } {
  const tree = buildTree(dir, paths);
  const out = [displayPath(dir, true)];
  let used = out[0]?.length ?? 0;
  let files = 0;
  const complete = walk(tree, 1, (line, isFile) => {
    if (used + line.length + 1 > budget) return false;
    out.push(line);
    used += line.length + 1;
    if (isFile) files++;
    return true;
  });
  if (total === 0) out.push(" (empty)");
  const truncated = !complete || files < total;
  if (truncated) {
    const sub = [...tree.dirs.keys()].sort(byName)[0];
    const example = sub === undefined ? "" : ` (e.g. view ${displayPath(dir === "" ? sub : `${dir}/${sub}`, true)})`;
    out.push(`[Showing ${files} of ${total} files. View a subdirectory${example} to see the rest.]`);
  }
  return { text: out.join("\n"), truncated };
}
