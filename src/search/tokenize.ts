/**
 * Query tokenizer: turns a free-text query into the terms the search engine
 * looks up, one per concept, in the order they appear.
 *
 * ## Rules
 * - NFKC-normalised, lower-cased; split on whitespace and punctuation, so word
 *   order and punctuation do not matter.
 * - A compound (hyphenated, snake_case, camelCase, dotted, slashed or with an
 *   apostrophe) stays ONE term with its parts and their joined form:
 *   "dockerCompose", "docker-compose" and "docker_compose" all become
 *   parts ["docker", "compose"] + joined "dockercompose".
 * - A run of CJK characters (Han, kana, Hangul) is one term, matched by its
 *   character bigrams, since those scripts do not separate words by spaces.
 * - English stop words standing alone are dropped; inside a compound they stay.
 * - In a query that opens like a question ("what", "how", "would", ...), the
 *   words that only frame it are dropped too: "many"/"much"/"long"/"often"/"far"
 *   after "how" (and "times" after "how many"), "kind"/"type"/"sort" before
 *   "of", and the hedges "likely"/"probably" (questionFrame).
 * - Terms longer than MAX_TERM_CHARS are dropped, duplicates are merged, and
 *   at most MAX_QUERY_TERMS terms are kept (the first ones).
 * - Terms are plain letters and digits: FTS5 syntax characters (quotes, `*`,
 *   `-`, parentheses, `:`, `^`, braces) never survive tokenizing, and every
 *   term is quoted again when it is put into a MATCH expression.
 */
import { STOP_WORDS } from "./stopwords";

export const MAX_QUERY_TERMS = 16;
const MAX_TERM_CHARS = 64;

export interface QueryTerm {
  /** The term as a key: the joined form, the single word, or the CJK run. */
  key: string;
  /** Word parts, lower-cased: ["docker", "compose"]; one part for a plain word. */
  parts: string[];
  /** A CJK run, matched by bigrams. */
  cjk: boolean;
}

// CJK: U+3040..U+9FFF (kana, CJK symbols, extension A, unified ideographs), Hangul syllables, compatibility ideographs.
export const CJK_RUN = /[\u3040-\u9fff\uac00-\ud7af\uf900-\ufaff]+/gu;
// A word, possibly a compound joined by - _ . / or an apostrophe (CJK runs are taken out first).
export const WORD = /[\p{L}\p{N}\p{M}]+(?:[-_./'\u2019][\p{L}\p{N}\p{M}]+)*/gu;
const JOINERS = /[-_./'\u2019]+/u;
// camelCase humps: "dockerCompose" -> docker|Compose, "HTTPServer" -> HTTP|Server.
const CAMEL = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

/** The lower-cased parts of a word: "dockerCompose", "docker-compose" -> ["docker", "compose"]. */
export function wordParts(word: string): string[] {
  return word
    .split(JOINERS)
    .flatMap((piece) => piece.split(CAMEL))
    .map((p) => p.toLowerCase())
    .filter((p) => p !== "");
}

/** `text` with its CJK runs blanked out (same length, so match indexes still line up). */
export const withoutCjk = (text: string) => text.replace(CJK_RUN, (run) => " ".repeat(run.length));

function wordTerm(word: string): QueryTerm | undefined {
  const parts = wordParts(word);
  const key = parts.join("");
  if (parts.length === 0 || key.length > MAX_TERM_CHARS) return undefined;
  if (parts.length === 1 && STOP_WORDS.has(key)) return undefined;
  return { key, parts, cjk: false };
}

/** Words that open a question: a query starting with one is asked in plain language. */
const QUESTION_OPENERS: ReadonlySet<string> = new Set(
  "what when where who whom whose which why how would could should might may can will do does did is are was were has have had".split(" "),
);
/** After "how", the word that says what is asked ("how long", "how many times"), not what it is about. */
const HOW_FRAMES: ReadonlySet<string> = new Set(["many", "much", "long", "often", "far"]);
/** Before "of", a word that only frames the question ("what kind of art"). */
const OF_FRAMES: ReadonlySet<string> = new Set(["kind", "kinds", "type", "types", "sort", "sorts"]);
/** Hedges of a question asking for an inference ("would Caroline likely ..."). */
const HEDGES: ReadonlySet<string> = new Set(["likely", "probably"]);

/**
 * Positions of the words that frame a plain-language question rather than say what it is about: "many"
 * and "times" in "how many times", "kind" in "what kind of", "likely" in "would she likely". Only in a
 * query that opens like a question, so a keyword query ("entity type", "long polling") keeps every word.
 */
export function questionFrame(words: readonly string[]): Set<number> {
  const out = new Set<number>();
  if (!QUESTION_OPENERS.has(words[0] ?? "")) return out;
  words.forEach((w, i) => {
    if (HOW_FRAMES.has(w) && words[i - 1] === "how") {
      out.add(i);
      if (words[i + 1] === "times") out.add(i + 1);
    } else if (OF_FRAMES.has(w) && words[i + 1] === "of") out.add(i);
    else if (HEDGES.has(w)) out.add(i);
  });
  return out;
}

/** The terms of `query`, at most MAX_QUERY_TERMS; empty when it has nothing searchable. */
export function tokenize(query: string): QueryTerm[] {
  const text = query.normalize("NFKC");
  const found: { at: number; term: QueryTerm }[] = [];
  for (const m of text.matchAll(CJK_RUN)) {
    const run = m[0];
    if ([...run].length <= MAX_TERM_CHARS) found.push({ at: m.index, term: { key: run, parts: [run], cjk: true } });
  }
  const words = [...withoutCjk(text).matchAll(WORD)];
  const frame = questionFrame(words.map((m) => m[0].toLowerCase()));
  words.forEach((m, i) => {
    const term = frame.has(i) ? undefined : wordTerm(m[0]);
    if (term) found.push({ at: m.index, term });
  });
  found.sort((a, b) => a.at - b.at);
  const terms = new Map<string, QueryTerm>();
  for (const { term } of found) {
    if (terms.size >= MAX_QUERY_TERMS) break;
    if (!terms.has(term.key)) terms.set(term.key, term);
  }
  return [...terms.values()];
}

/** An FTS5 string literal: the text in double quotes, inner quotes doubled. */
export const quote = (s: string) => `"${s.replaceAll('"', '""')}"`;

/** Overlapping character bigrams of a CJK run: "会議室" -> ["会議", "議室"]. */
export function bigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  return chars.slice(0, -1).map((c, i) => c + chars[i + 1]);
}
