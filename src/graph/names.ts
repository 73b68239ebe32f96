/**
 * Entity names in a normal form, for find_duplicates (./duplicates.ts) and
 * alias lookups (./aliases.ts). Pure functions, no SQL.
 *
 * ## The normal form
 * NFKC, diacritics removed, lower case; a possessive "'s" dropped; "&" read
 * as "and"; anything else that is not a letter or digit is a word break; a
 * leading "the" and trailing company suffixes (Inc, Corp, Ltd, LLC, GmbH, …)
 * dropped, unless nothing else is left; each word singular ("labs" → "lab",
 * "companies" → "company"; words of three letters or fewer and "-ss" words
 * are kept). `key` is the words joined without spaces, so "Open AI" and
 * "OpenAI" share a key; `acronym` is the initials of a name of two or more
 * words (small words like "of" skipped): "International Business Machines"
 * gives "ibm", which meets the key of "IBM".
 */

const SUFFIXES = new Set([
  "inc",
  "incorporated",
  "corp",
  "corporation",
  "co",
  "company",
  "ltd",
  "limited",
  "llc",
  "llp",
  "plc",
  "gmbh",
  "ag",
  "sa",
  "sarl",
  "bv",
  "nv",
  "pty",
  "srl",
  "oy",
  "ab",
  "kk",
]);
const SMALL_WORDS = new Set(["of", "and", "the", "for", "a", "an", "de", "du", "la", "le"]);

export interface NormalName {
  /** The words, normalised. */
  words: string[];
  /** The words joined without spaces ("" for a name with no letter or digit). */
  key: string;
  /** Initials of a name of two or more significant words, else undefined. */
  acronym?: string;
}

function singular(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("ss") || word.endsWith("us") || word.endsWith("is")) return word;
  if (word.endsWith("s")) return word.slice(0, -1);
  return word;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export function normalName(name: string): NormalName {
  // Printable ASCII, the usual name, has no accents to strip and nothing NFKC changes: find_duplicates reads every name.
  const ascii = PRINTABLE_ASCII.test(name);
  const text = (
    ascii
      ? name
      : name
          .normalize("NFKD")
          .replace(/\p{M}+/gu, "")
          .normalize("NFKC")
  )
    .toLowerCase()
    .replace(/['’]s\b/gu, "")
    .replace(/&/g, " and ");
  let words = text.split(ascii ? /[^a-z0-9]+/ : /[^\p{L}\p{N}]+/u).filter((w) => w !== "");
  const all = words;
  if (words[0] === "the" && words.length > 1) words = words.slice(1);
  while (words.length > 1 && SUFFIXES.has(words[words.length - 1] as string)) words = words.slice(0, -1);
  if (words.length === 0) words = all;
  words = words.map(singular);
  const significant = words.filter((w) => !SMALL_WORDS.has(w));
  const acronym = significant.length >= 2 ? significant.map((w) => w[0]).join("") : undefined;
  return { words, key: words.join(""), ...(acronym !== undefined && { acronym }) };
}

/** The text trigrams are taken from: the words joined by one space, padded with a space at each end. */
export const trigramText = (n: NormalName): string => ` ${n.words.join(" ")} `;

/** The name's trigrams (of `trigramText`). */
export function trigrams(n: NormalName): Set<string> {
  const padded = trigramText(n);
  const out = new Set<string>();
  // Code points, not UTF-16 units, when the name has any beyond the BMP (the common case needs no array).
  if (/[\uD800-\uDFFF]/.test(padded)) {
    const chars = [...padded];
    for (let i = 0; i + 3 <= chars.length; i++) out.add(chars.slice(i, i + 3).join(""));
  } else {
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.substring(i, i + 3));
  }
  return out;
}
