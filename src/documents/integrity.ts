/**
 * Tree integrity: decides, before anything is written, what an update of a
 * document's content does to the tree, or rejects it.
 *
 * ## Rules (a document's links must be exactly its children)
 * 1. A document may link only its own children: ids it already parents, or
 *    new ids (which become its children).
 * 2. No links to siblings, ancestors or documents in other branches.
 * 3. No cycles: a document cannot link itself or an ancestor.
 * 4. No document gets two parents: an existing document is never re-linked
 *    from a second place.
 * Plus the limits: a new child deeper than `maxDepth` links below the root,
 * an id over LIMITS.documentId characters, more than LIMITS.documentLinks
 * links. A rejection names every offending link with its reason.
 */
import type { Db } from "../storage/sql";
import { DomainError } from "../errors";
import { LIMITS } from "../limits";
import { parseLinks } from "./links";
import { ancestorsOf, childrenOf, parentsOf } from "./rows";

export interface UpdatePlan {
  /** New ids to create as children, in link order. */
  create: string[];
  /** Current children no longer linked: each is removed with its subtree. */
  orphans: string[];
}

const link = (id: string) => `[[${id}]]`;

/** Why linking `target` from `id` breaks the tree, or undefined when it is `id`'s own child. */
function violation(id: string, target: string, targetParent: string | null, ancestors: readonly string[], parentsOfTarget: () => string[]): string | undefined {
  if (targetParent === id) return undefined;
  if (target === id) return `${link(target)} links the document to itself (a cycle)`;
  if (ancestors.includes(target)) return `${link(target)} is an ancestor of "${id}" (a cycle)`;
  if (targetParent !== null && targetParent === ancestors[0]) {
    return `${link(target)} is a sibling of "${id}" (both under "${targetParent}"); link it from "${targetParent}" only`;
  }
  if (parentsOfTarget().includes(id)) {
    return `${link(target)} is already under "${targetParent}", below "${id}"; a document cannot have two parents`;
  }
  return `${link(target)} belongs to another branch (its parent is "${targetParent}"); a document cannot have two parents`;
}

/**
 * Plans the update of document `id` (at depth `ancestors.length`) to `content`.
 * Throws DomainError (Invalid or TooLarge) naming the offending links.
 */
export function planUpdate(db: Db, id: string, content: string, maxDepth: number): UpdatePlan {
  const { ids, tooLong } = parseLinks(content);
  const problems = tooLong.map((t) => `[[${t.slice(0, 40)}...]] has an id of ${t.length} characters (at most ${LIMITS.documentId})`);
  if (ids.length > LIMITS.documentLinks) {
    throw new DomainError("TooLarge", `"${id}" links ${ids.length} documents; a document may link at most ${LIMITS.documentLinks}. Nothing was written.`);
  }

  const ancestors = ancestorsOf(db, id);
  const existing = parentsOf(db, ids);
  const create: string[] = [];
  for (const target of ids) {
    if (!existing.has(target)) {
      if (ancestors.length + 1 > maxDepth) {
        problems.push(`${link(target)} would be ${ancestors.length + 1} links below the root; documents may be at most ${maxDepth} deep`);
      } else {
        create.push(target);
      }
      continue;
    }
    const why = violation(id, target, existing.get(target) ?? null, ancestors, () => ancestorsOf(db, target));
    if (why) problems.push(why);
  }

  if (problems.length > 0) {
    const depthOnly = problems.every((p) => p.includes("links below the root"));
    const shown = problems.slice(0, 10).join("; ") + (problems.length > 10 ? `; and ${problems.length - 10} more` : "");
    throw new DomainError(
      depthOnly ? "TooLarge" : "Invalid",
      `update of "${id}" rejected, nothing was written: ${shown}. A document may link only its own children (ids it already links, or new ids).`,
    );
  }

  const linked = new Set(ids);
  const orphans = childrenOf(db, id).filter((child) => !linked.has(child));
  return { create, orphans };
}
