/**
 * The character rules for text that enters the server, stated once.
 *
 * ## Well-formed Unicode, everywhere
 * A JavaScript string may hold a lone UTF-16 surrogate (JSON's `"\ud800"`
 * escape makes one). Storage is UTF-8, which cannot hold it: SQLite would
 * keep U+FFFD instead, so what was acknowledged (and recorded in history)
 * would differ from what was stored, and two different names could collide.
 * Every request value is therefore checked before anything acts on it
 * (`malformedIn`: the MCP tool arguments in src/mcp/server.ts, the /api JSON
 * bodies in src/api/http.ts, each memory.jsonl line in src/api/jsonl.ts) and
 * refused with the field's path and the index of the lone surrogate.
 *
 * ## Names and paths
 * What names a new thing (entity names and types, relation types, file
 * paths) must also be free of characters that are invisible or reorder what
 * is shown: C0 and C1 controls (U+0085 included), DEL, the bidirectional
 * embeddings, overrides and isolates (U+202A-202E, U+2066-2069) and the
 * zero-width characters (U+200B-200D, U+2060, U+FEFF). Free text
 * (observations, file and document content) keeps them.
 */

/** The index of the first lone surrogate in `s`, or -1. */
function loneSurrogateAt(s: string): number {
  if (s.isWellFormed()) return -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

/** What the refusal of a malformed string says after its field's name. */
const malformedMessage = (index: number) => `contains a lone surrogate (malformed UTF-16) at index ${index}`;

/** A field that is not well-formed: its path (`entities.0.name`, as zod's issues spell paths) and the problem. */
export interface Malformed {
  path: string;
  message: string;
}

const join = (path: string, key: string | number) => (path === "" ? String(key) : `${path}.${key}`);

/**
 * The first string in a parsed JSON value (object keys included) that is
 * not well-formed Unicode, or undefined. `path` prefixes the field's path.
 * Iterative, so no nesting depth a 4 MB body allows can overflow the stack.
 */
export function malformedIn(value: unknown, path = ""): Malformed | undefined {
  const pending: [unknown, string][] = [[value, path]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, at] = next;
    if (typeof v === "string") {
      const index = loneSurrogateAt(v);
      if (index >= 0) return { path: at, message: malformedMessage(index) };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) pending.push([v[i], join(at, i)]);
    } else if (typeof v === "object" && v !== null) {
      const entries = Object.entries(v);
      for (const [key] of entries) {
        const index = loneSurrogateAt(key);
        if (index >= 0) return { path: join(at, JSON.stringify(key.toWellFormed())), message: `key ${malformedMessage(index)}` };
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i] as [string, unknown];
        pending.push([item, join(at, key)]);
      }
    }
  }
  return undefined;
}

const PATH_SHOWN = 200;

/** "path: message", or the message alone for the value itself; a path deeper than anyone would read is cut in the middle. */
export function describeMalformed(m: Malformed): string {
  if (m.path === "") return m.message;
  const half = PATH_SHOWN / 2;
  const path = m.path.length > PATH_SHOWN ? `${m.path.slice(0, half)}…${m.path.slice(-half)}` : m.path;
  return `${path}: ${m.message}`;
}

// C0 controls, DEL, C1 controls (U+0085 NEL among them); ZWSP, ZWNJ, ZWJ; bidi embeddings and overrides; word joiner; bidi isolates; BOM.
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u200b-\u200d\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

/** The rule in words, for every message that refuses such a character. */
const NAME_CHARACTERS_RULE = "must not contain control characters, bidirectional controls (U+202A-202E, U+2066-2069) or zero-width characters";

export const codePoint = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;

/** Why `s` may not name a new thing (`must not contain ...: U+202E at index 3`; the caller puts the field first), or undefined. */
export function hiddenCharacterProblem(s: string): string | undefined {
  const found = HIDDEN.exec(s);
  return found ? `${NAME_CHARACTERS_RULE}: ${codePoint(found[0])} at index ${found.index}` : undefined;
}

const HIDDEN_ALL = new RegExp(HIDDEN.source, "g");

/** `s` with every character the name rule refuses spelled as a \uXXXX escape, so a message quoting it shows it. */
export const visible = (s: string) => s.replace(HIDDEN_ALL, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`);
