/**
 * Reading what the tools answer into trees the page can draw: the file tree
 * from `view{path: "/"}` and the document tree from `get_document_tree`.
 * Pure (no DOM). The formats are the tools' own, documented where they are
 * made: src/files/view.ts (one space of indentation per level, directories
 * with a trailing "/", notes in brackets) and src/documents/yaml.ts (two
 * spaces per level, keys plain or JSON-quoted, titles as comments).
 */

export interface FileNode {
  name: string;
  /** Path from the memory root, as the file tools take it. */
  path: string;
  dir: boolean;
  children: FileNode[];
}

/** The tree of a `view` of "/": its text and `files` (how many files it holds; the text of an empty memory says "(empty)"). */
export function parseFileTree(text: string, files: number): FileNode[] {
  if (files === 0) return [];
  const root: FileNode = { name: "", path: "", dir: true, children: [] };
  // stack[d] is the directory at depth d; the root is depth 0.
  const stack: FileNode[] = [root];
  for (const line of text.split("\n").slice(1)) {
    const depth = line.length - line.trimStart().length;
    // Depth-0 lines are notes ("[Showing 10 of 12 files ...]").
    if (depth === 0 || line.trim() === "") continue;
    const parent = stack[Math.min(depth - 1, stack.length - 1)];
    if (!parent) continue;
    const raw = line.slice(depth);
    const dir = raw.endsWith("/");
    const name = dir ? raw.slice(0, -1) : raw;
    const node: FileNode = { name, path: parent.path === "" ? name : `${parent.path}/${name}`, dir, children: [] };
    parent.children.push(node);
    stack.length = depth;
    if (dir) stack[depth] = node;
  }
  return root.children;
}

export interface DocNode {
  id: string;
  title?: string;
  children: DocNode[];
}

const QUOTED = /^"((?:[^"\\]|\\.)*)"/;

/** The tree of get_document_tree's YAML (with or without titles); undefined when it holds no document. */
export function parseDocTree(yaml: string): DocNode | undefined {
  const roots: DocNode[] = [];
  const stack: DocNode[] = [];
  for (const line of yaml.split("\n")) {
    if (line.trim() === "") continue;
    const indent = line.length - line.trimStart().length;
    const depth = Math.floor(indent / 2);
    const rest = line.slice(indent);
    let id: string;
    let after: string;
    const quoted = QUOTED.exec(rest);
    if (quoted) {
      id = JSON.parse(quoted[0]) as string;
      after = rest.slice(quoted[0].length);
    } else {
      const colon = rest.indexOf(":");
      if (colon < 0) continue;
      id = rest.slice(0, colon);
      after = rest.slice(colon);
    }
    const comment = /^:\s+#\s?(.*)$/.exec(after);
    const node: DocNode = { id, ...(comment?.[1] ? { title: comment[1] } : {}), children: [] };
    const parent = depth > 0 ? stack[depth - 1] : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
    stack.length = depth;
    stack[depth] = node;
  }
  return roots[0];
}

/** The ids a document links as `[[id]]`, in order, each once (its children). */
export function docLinks(content: string): string[] {
  const ids = [...content.matchAll(/\[\[([a-zA-Z0-9_-]{1,128})\]\]/g)].map((m) => m[1] ?? "");
  return [...new Set(ids)];
}

export type ItemKind = "entity" | "file" | "doc";

/** An item key (`entity:<name>`, `file:<path>`, `doc:<id>`) split into kind and name; undefined for other kinds. */
export function parseItem(key: string): { kind: ItemKind; name: string } | undefined {
  const colon = key.indexOf(":");
  const kind = key.slice(0, colon);
  if (colon < 0 || (kind !== "entity" && kind !== "file" && kind !== "doc")) return undefined;
  return { kind, name: key.slice(colon + 1) };
}

/** A whole file's text from `view`'s numbered lines (`   1: text`); undefined when the view was cut, so the file cannot be edited from it. */
export function fileContent(view: { text: string; truncated: boolean; lines?: { from: number; to: number; total: number } }): string | undefined {
  if (view.truncated || (view.lines && (view.lines.from > 1 || view.lines.to < view.lines.total))) return undefined;
  if (view.lines?.total === 0) return "";
  const lines = view.text.split("\n");
  if (lines.some((l) => !/^ *\d+: /.test(l) || /… \[line \d+ cut at/.test(l))) return undefined;
  return `${lines.map((l) => l.replace(/^ *\d+: /, "")).join("\n")}\n`;
}
