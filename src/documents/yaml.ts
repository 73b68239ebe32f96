/**
 * The document tree as YAML: a nested mapping of ids, leaves null.
 *
 *   root:  # メモ帳
 *     project_overview:
 *     current_tasks:
 *       architecture:
 *
 * With titles, each document's title line follows its id as a comment, so
 * the shape (and what a YAML parser reads) is the same with or without them;
 * a title that only repeats the id is left out.
 */
import type { TreeNode } from "./store";

// YAML 1.1 and 1.2 read these plain words as booleans or null, not strings.
const RESERVED = /^(y|n|yes|no|on|off|true|false|null)$/i;

/** An id as a YAML key: plain when it cannot be read as anything but a string, else double-quoted. */
export function yamlKey(id: string): string {
  return /^[a-zA-Z_][a-zA-Z0-9_-]*$/.test(id) && !RESERVED.test(id) ? id : JSON.stringify(id);
}

export function renderTree(root: TreeNode, titles: boolean): string {
  const lines: string[] = [];
  const walk = (node: TreeNode, depth: number) => {
    const comment = titles && node.title !== "" && node.title !== node.id ? `  # ${node.title}` : "";
    lines.push(`${"  ".repeat(depth)}${yamlKey(node.id)}:${comment}`);
    for (const child of node.children) walk(child, depth + 1);
  };
  walk(root, 0);
  return `${lines.join("\n")}\n`;
}
