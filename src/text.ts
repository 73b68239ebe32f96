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
 * ## UTF-8 bodies
 * The bytes of a request body are decoded strictly (`decodeUtf8`: the MCP
 * body in src/index.ts, the /api JSON bodies in src/api/http.ts, the import
 * file in src/api/routes.ts): a decoder that replaced an ill-formed byte
 * with U+FFFD would store "Caf\uFFFD" for a Latin-1 "Caf\xE9", and two
 * different bodies could name the same thing. A body that is not UTF-8 is
 * refused whole, with the offset of the first ill-formed byte. A byte-order
 * mark (EF BB BF) at the very start is skipped, as JSON readers may (RFC
 * 8259 §8.1) and as editors that save "UTF-8 with BOM" expect; anywhere
 * else U+FEFF is a character like any other.
 *
 * ## Names and paths
 * What names a new thing (entity names and types, relation types, file
 * paths), and what is shown beside names as sent (a context's description,
 * a webhook's URL), must also be free of characters that are invisible or
 * reorder what is shown, chosen by Unicode property (`REFUSED`): controls, the
 * `Default_Ignorable_Code_Point` characters, the `Bidi_Control` characters
 * and the line and paragraph separators (U+2028, U+2029). Inside the
 * sequences where they are seen (`KEPT`: emoji such as "❤️" and "👩‍💻", a
 * kanji's variation, the zero-width non-joiner in a Persian word) they stay.
 * A refusal names the character as U+XXXX. Free text (observations, file and
 * document content) keeps them all.
 */

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Where a body stops being UTF-8: the offset of the first byte of the first ill-formed sequence, and that byte. */
export interface IllFormedUtf8 {
  offset: number;
  byte: number;
}

/** `bytes` as text, a leading byte-order mark skipped, or where they are not well-formed UTF-8. */
export function decodeUtf8(bytes: ArrayBuffer | Uint8Array): { ok: true; text: string } | { ok: false; at: IllFormedUtf8 } {
  try {
    return { ok: true, text: STRICT_UTF8.decode(bytes) };
  } catch {
    const all = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const offset = illFormedAt(all);
    return { ok: false, at: { offset, byte: all[offset] ?? 0 } };
  }
}

/** "at byte 3 (0xE9)": where a body that is not UTF-8 goes wrong, counted from 0. */
export const describeIllFormed = (at: IllFormedUtf8) => `at byte ${at.offset} (0x${at.byte.toString(16).toUpperCase().padStart(2, "0")})`;

/** The refusal of a JSON body (`what`: "The body", "The registration") that is not UTF-8, as every door words it. */
export const notUtf8Json = (what: string, at: IllFormedUtf8) => `${what} is not valid UTF-8 (${describeIllFormed(at)}); send JSON encoded as UTF-8.`;

/**
 * The offset of the first ill-formed sequence in `b` (the well-formed byte
 * sequences of Unicode's table 3-7), or `b.length` when there is none.
 * Only run once the strict decoder has refused `b`.
 */
function illFormedAt(b: Uint8Array): number {
  const within = (i: number, lo: number, hi: number) => i < b.length && (b[i] as number) >= lo && (b[i] as number) <= hi;
  for (let i = 0; i < b.length; ) {
    const lead = b[i] as number;
    let size = 0;
    if (lead <= 0x7f) size = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) size = within(i + 1, 0x80, 0xbf) ? 2 : 0;
    else if (lead >= 0xe0 && lead <= 0xef) {
      const [lo, hi] = lead === 0xe0 ? [0xa0, 0xbf] : lead === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
      size = within(i + 1, lo, hi) && within(i + 2, 0x80, 0xbf) ? 3 : 0;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      const [lo, hi] = lead === 0xf0 ? [0x90, 0xbf] : lead === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
      size = within(i + 1, lo, hi) && within(i + 2, 0x80, 0xbf) && within(i + 3, 0x80, 0xbf) ? 4 : 0;
    }
    if (size === 0) return i;
    i += size;
  }
  return b.length;
}

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

/**
 * What no new name may hold, by Unicode property rather than by list: controls
 * (C0, DEL, C1), default-ignorable code points (invisible by definition: soft
 * hyphen, zero-width characters, fillers, tags, variation selectors...),
 * bidirectional controls and the line and paragraph separators.
 */
const REFUSED = /[\p{Cc}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\p{Zl}\p{Zp}]/u;
const REFUSED_ALL = new RegExp(REFUSED.source, "gu");

/**
 * Letters and marks of the scripts whose shaping the zero-width joiner and
 * non-joiner change (so there they are seen): the cursive-joining scripts
 * (Arabic, whose Persian needs the non-joiner, Syriac, N'Ko, Mongolian...)
 * and the Indic ones, where a joiner after a virama picks a conjunct form.
 */
const SHAPED = String.raw`(?:(?=[\p{L}\p{M}])[\p{scx=Arab}\p{scx=Syrc}\p{scx=Nkoo}\p{scx=Mong}\p{scx=Mand}\p{scx=Mani}\p{scx=Phlp}\p{scx=Adlm}\p{scx=Rohg}\p{scx=Sogd}\p{scx=Phag}\p{scx=Deva}\p{scx=Beng}\p{scx=Guru}\p{scx=Gujr}\p{scx=Orya}\p{scx=Taml}\p{scx=Telu}\p{scx=Knda}\p{scx=Mlym}\p{scx=Sinh}\p{scx=Mymr}\p{scx=Khmr}])`;

/** A pictograph with its skin tone or presentation selector. */
const PICTOGRAPH = String.raw`\p{Extended_Pictographic}(?:\p{Emoji_Modifier}|[\uFE0E\uFE0F])?`;

/**
 * The sequences in which default-ignorable characters are part of what is
 * shown, so a name keeps them: emoji (a variation selector, zero-width joiner
 * sequences such as 👩‍💻, keycaps, subdivision flags), ideographic variation
 * sequences (a glyph variant of a kanji, as names registers use), and the
 * joiners between letters of the scripts in SHAPED.
 */
const KEPT = new RegExp(
  [
    String.raw`\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}`,
    `${PICTOGRAPH}(?:\\u200D${PICTOGRAPH})*`,
    String.raw`[0-9#*]\uFE0F\u20E3`,
    String.raw`\p{Ideographic}[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]`,
    String.raw`(?<=${SHAPED})[\u200C\u200D](?=${SHAPED})`,
  ].join("|"),
  "gu",
);

/** `s` with every kept sequence overwritten by as many "x" (UTF-16 units), so what REFUSED finds is refused and its index is the same in `s`. */
const withoutKept = (s: string) => s.replace(KEPT, (m) => "x".repeat(m.length));

/** The rule in words, for every message that refuses such a character. */
const NAME_CHARACTERS_RULE =
  "must not contain control characters, invisible (default-ignorable) characters outside emoji and joining scripts, bidirectional controls or line and paragraph separators";

export const codePoint = (c: string) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;

/** What a refused character is, in a few words. */
function kindOf(c: string): string {
  if (/\p{Cc}/u.test(c)) return "a control character";
  if (/\p{Bidi_Control}/u.test(c)) return "a bidirectional control";
  if (/\p{Zl}/u.test(c)) return "a line separator";
  if (/\p{Zp}/u.test(c)) return "a paragraph separator";
  return "an invisible character";
}

/** Why `s` may not name a new thing (`must not contain ...: U+202E at index 3 (a bidirectional control)`; the caller puts the field first), or undefined. */
export function hiddenCharacterProblem(s: string): string | undefined {
  if (!REFUSED.test(s)) return undefined;
  const found = REFUSED.exec(withoutKept(s));
  return found ? `${NAME_CHARACTERS_RULE}: ${codePoint(found[0])} at index ${found.index} (${kindOf(found[0])})` : undefined;
}

const escaped = (c: string) => {
  const hex = (c.codePointAt(0) ?? 0).toString(16);
  return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex.padStart(4, "0")}`;
};

/** `s` with every character the name rule refuses spelled as an escape (`\u2063`, `\u{e0041}`), so a message quoting it shows it. */
export function visible(s: string): string {
  if (!REFUSED.test(s)) return s;
  const blank = withoutKept(s);
  let out = "";
  let last = 0;
  for (const m of blank.matchAll(REFUSED_ALL)) {
    out += s.slice(last, m.index) + escaped(m[0]);
    last = m.index + m[0].length;
  }
  return out + s.slice(last);
}
