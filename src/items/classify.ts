/**
 * The category classifier: a deterministic keyword count, no model, no
 * randomness, so the same text always gets the same category.
 *
 * ## Rules
 * 1. The text is NFKC-normalised and lower-cased. Latin-script text is split
 *    into words on anything that is not a letter or digit (camelCase is split
 *    too: `birthdayParty` is "birthday party"); a word also matches a keyword
 *    without a trailing "s" ("bugs" is "bug"). CJK keywords match as
 *    substrings, since CJK text has no spaces.
 * 2. Each keyword occurrence scores one point for its category, three when
 *    it is in the item's title part (an entity's name and type, a file's
 *    path, a document's title line and id), at most MAX_HITS_PER_KEYWORD
 *    points per keyword and part, so one repeated word cannot decide alone.
 * 3. The category with the most points wins; a tie goes to the first in
 *    CATEGORY_ORDER (personal, technical, project, casual). No point at all
 *    is "general".
 * 4. Only the first MAX_CLASSIFY_CHARS characters of the body are read, so
 *    the cost is bounded for a 1 MB file.
 *
 * The keyword lists below are the rules; docs/priority.md (Access tracking
 * and categories) repeats them in short.
 * Every domain classifies the items it writes, so the classifier sits with
 * the items rather than with the priority model that weighs the categories.
 */
import type { Category } from "./stats";

export const MAX_CLASSIFY_CHARS = 20_000;
const TITLE_WEIGHT = 3;
const MAX_HITS_PER_KEYWORD = 3;
/** Ties go to the earlier category. */
const CATEGORY_ORDER = ["personal", "technical", "project", "casual"] as const satisfies readonly Category[];

type Scored = (typeof CATEGORY_ORDER)[number];

const words = (list: string): string[] => list.trim().split(/\s+/);

/** Latin-script keywords, matched as whole words. */
export const KEYWORDS: Readonly<Record<Scored, readonly string[]>> = {
  personal: words(`
    person people personal family friend friends wife husband partner spouse girlfriend boyfriend child children kid kids
    son daughter mother father mom mum dad parent parents brother sister grandmother grandfather birthday anniversary wedding
    prefers prefer preference likes dislikes loves hates favorite favourite hobby allergy allergic diet vegetarian vegan health
    doctor pet dog cat lives home hometown nickname pronouns`),
  technical: words(`
    code api bug database db server function library framework deploy deployment error exception config configuration
    typescript javascript python rust java golang sql sqlite postgres postgresql mysql redis docker kubernetes k8s git github
    http https endpoint schema query index cache latency performance test compiler algorithm cli build dependency install
    linux script module class method variable regex json yaml auth oauth token encryption service microservice backend
    frontend infrastructure architecture protocol runtime debug debugging stacktrace migration refactor repository software
    technology tool cpu gpu network websocket`),
  project: words(`
    project milestone deadline roadmap sprint task todo release launch plan planning goal requirement requirements
    stakeholder client customer meeting decision owner team backlog ticket epic scope estimate budget timeline status
    priority deliverable kickoff retro retrospective okr objective progress blocker assignee`),
  casual: words(`
    chat joke jokes weather movie film music song game fun lunch dinner breakfast coffee tea weekend holiday vacation party
    sport sports football soccer tv series funny hello hi thanks greeting smalltalk gossip meme travel trip`),
};

/** CJK keywords, matched as substrings. */
const CJK_KEYWORDS: Readonly<Record<Scored, readonly string[]>> = {
  personal: ["家族", "友人", "誕生日", "趣味", "好み", "家庭", "個人"],
  technical: ["設計", "実装", "データベース", "サーバ", "バグ", "コード", "技術", "エラー", "仕様"],
  project: ["プロジェクト", "締め切り", "締切", "タスク", "計画", "会議", "目標", "進捗", "課題"],
  casual: ["雑談", "天気", "映画", "音楽", "週末", "休暇", "ランチ"],
};

const LOOKUP = new Map<string, Scored>();
for (const c of CATEGORY_ORDER) for (const k of KEYWORDS[c]) LOOKUP.set(k, c);

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function normalise(text: string): string {
  // camelCase boundaries become spaces before lower-casing hides them.
  return text
    .normalize("NFKC")
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
    .toLowerCase();
}

/** The keyword `word` is, itself or without a plural "s". */
function keywordOf(word: string): string | undefined {
  if (LOOKUP.has(word)) return word;
  const singular = word.length > 3 && word.endsWith("s") ? word.slice(0, -1) : undefined;
  return singular !== undefined && LOOKUP.has(singular) ? singular : undefined;
}

/** How often each keyword occurs in normalised text: its words, split and looked up one by one. */
export function unicodeHits(norm: string): Map<string, number> {
  const hits = new Map<string, number>();
  for (const w of norm.split(/[^\p{L}\p{N}]+/u)) {
    const key = w === "" ? undefined : keywordOf(w);
    if (key !== undefined) hits.set(key, (hits.get(key) ?? 0) + 1);
  }
  return hits;
}

/**
 * The keywords as a trie over the symbols a-z, 0-9 (upper-case letters read
 * as lower-case), flat in one typed array: node n's child for symbol y is
 * TRIE[n * WIDTH + y], 0 for none (no edge leads back to the root, node 0).
 */
const WIDTH = 36;
const SYMBOL = new Int8Array(128).fill(-1);
for (let c = 0; c < 26; c++) SYMBOL[97 + c] = SYMBOL[65 + c] = c;
for (let c = 0; c < 10; c++) SYMBOL[48 + c] = 26 + c;
const TRIE = new Uint16Array(WIDTH * (1 + [...LOOKUP.keys()].reduce((n, k) => n + k.length, 0)));
const NODE_KEYWORD: (string | undefined)[] = [undefined];
for (const k of LOOKUP.keys()) {
  let node = 0;
  for (let i = 0; i < k.length; i++) {
    const slot = node * WIDTH + (SYMBOL[k.charCodeAt(i)] as number);
    if (TRIE[slot] === 0) {
      TRIE[slot] = NODE_KEYWORD.length;
      NODE_KEYWORD.push(undefined);
    }
    node = TRIE[slot] as number;
  }
  NODE_KEYWORD[node] = k;
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * unicodeHits of ASCII text, the usual case, in one pass over char codes:
 * on ASCII, NFKC changes nothing and the words are the runs of [A-Za-z0-9],
 * split where a lower-case letter meets an upper-case one. Each word walks
 * the trie as it is read, with no string made for it; at its end it is a
 * keyword, or one with a plural "s" when it is longer than 3 and the walk
 * one character earlier stood on a keyword. Every entity written is
 * classified, so this path makes no string per word: splitting the text
 * into strings would cost a bulk load noticeably.
 */
export function asciiHits(text: string): Map<string, number> {
  const hits = new Map<string, number>();
  let node = 0; // -1: the word has left the trie
  let before = -1;
  let length = 0;
  let last = 0;
  let prev = 0;
  // One step past the end, as a space, ends the last word. (No closure per call: the bundler names each one at creation.)
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const symbol = SYMBOL[c] as number;
    if (length > 0 && (symbol < 0 || (c <= 90 && c >= 65 && prev >= 97 && prev <= 122))) {
      const key = (node >= 0 ? NODE_KEYWORD[node] : undefined) ?? (length > 3 && last === 115 && before >= 0 ? NODE_KEYWORD[before] : undefined);
      if (key !== undefined) hits.set(key, (hits.get(key) ?? 0) + 1);
      node = 0;
      before = -1;
      length = 0;
    }
    if (symbol >= 0) {
      before = node;
      node = node < 0 ? -1 : (TRIE[node * WIDTH + symbol] as number) || -1;
      last = c | 32;
      length++;
    }
    prev = c;
  }
  return hits;
}

/** Adds one part's points to `scores`. */
function score(text: string, weight: number, scores: Map<Scored, number>): void {
  const norm = ASCII.test(text) ? undefined : normalise(text);
  for (const [k, n] of norm === undefined ? asciiHits(text) : unicodeHits(norm)) {
    const c = LOOKUP.get(k) as Scored;
    scores.set(c, (scores.get(c) ?? 0) + weight * Math.min(n, MAX_HITS_PER_KEYWORD));
  }
  if (norm === undefined || !CJK.test(norm)) return;
  for (const c of CATEGORY_ORDER) {
    for (const k of CJK_KEYWORDS[c]) {
      let n = 0;
      for (let at = norm.indexOf(k); at >= 0 && n < MAX_HITS_PER_KEYWORD; at = norm.indexOf(k, at + k.length)) n++;
      if (n > 0) scores.set(c, (scores.get(c) ?? 0) + weight * n);
    }
  }
}

/** The category of an item whose title part is `title` and whose body is `body`. */
export function classify(title: string, body: string): Category {
  const scores = new Map<Scored, number>();
  score(title, TITLE_WEIGHT, scores);
  score(body.slice(0, MAX_CLASSIFY_CHARS), 1, scores);
  let best: Category = "general";
  let top = 0;
  for (const c of CATEGORY_ORDER) {
    const s = scores.get(c) ?? 0;
    if (s > top) {
      best = c;
      top = s;
    }
  }
  return best;
}

/** An entity: its name and type are the title part, its observations the body. */
export const classifyEntity = (name: string, entityType: string, observations: readonly string[]): Category =>
  classify(`${name} ${entityType}`, observations.join("\n"));

/** A file: its path is the title part, its content the body. */
export const classifyFile = (path: string, content: string): Category => classify(path, content);

/** A document: its id and title line are the title part, its content the body. */
export const classifyDocument = (id: string, title: string, content: string): Category => classify(`${id} ${title}`, content);
