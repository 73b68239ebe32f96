/**
 * The text rules of working memory, with no SQL: what a document id is, how
 * [[links]] are found in markdown, a document's title line and the template
 * of a newly linked child.
 *
 * ## Invariants
 * - A link is `[[id]]` with id matching DOCUMENT_ID_PATTERN; anything else
 *   between double brackets is plain text, except an id of valid characters
 *   that is too long, which is reported so the caller can reject it.
 * - Links are returned once each, in order of first appearance: that order
 *   is the children's order in the tree.
 */
import { LIMITS } from "../limits";

export const ROOT_ID = "root";

export const DOCUMENT_ID_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;

// Any run of id characters, so over-long ids are seen (and rejected) instead of ignored.
const LINK = /\[\[([a-zA-Z0-9_-]+)\]\]/g;

export interface ParsedLinks {
  /** Linked ids, each once, in order of first appearance. */
  ids: string[];
  /** Links whose id has valid characters but more than LIMITS.documentId of them. */
  tooLong: string[];
}

export function parseLinks(content: string): ParsedLinks {
  const ids = new Set<string>();
  const tooLong = new Set<string>();
  for (const match of content.matchAll(LINK)) {
    const id = match[1] as string;
    (id.length > LIMITS.documentId ? tooLong : ids).add(id);
  }
  return { ids: [...ids], tooLong: [...tooLong] };
}

/** True when `content` holds at least one [[link]] (of any length). */
export const hasLinks = (content: string): boolean => new RegExp(LINK.source).test(content);

/** The content a document gets when a parent first links it. */
export const childTemplate = (id: string): string => `# ${id}\n\n`;

const TITLE_MAX = 200;
// Control characters and Unicode line breaks would break the one-line YAML comment a title becomes.
const CONTROL = /[\u0000-\u001f\u007f\u0085\u2028\u2029]/g;

/** The first non-blank line, without leading '#'s, trimmed and capped at 200 characters. */
export function titleOf(content: string): string {
  for (const line of content.split(/\r?\n|\r/)) {
    const title = line
      .replace(/^\s*#+\s*/, "")
      .replace(CONTROL, " ")
      .trim();
    if (title !== "") return [...title].slice(0, TITLE_MAX).join("");
  }
  return "";
}

export const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;
