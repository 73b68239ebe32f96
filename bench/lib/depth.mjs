/**
 * The depth bench's data: a context whose own subjects are its common words,
 * with known best matches planted at every age, to see whether a search finds
 * the best match however old it is.
 *
 * ## Shape
 * - Filler: the ordinary generated graph's entities (./generate.mjs, same seed:
 *   names, types and templated observations), without relations, so every
 *   entity's connection factor is the same and only the text and the age
 *   tell entities apart.
 * - Common words: COMMON_WORDS, a dozen product names that are in none of the
 *   generator's word lists, people or templates and have no synonym in the
 *   bundled WordNet table, so nothing but this module puts them in the text
 *   and a query for them is not expanded. Each filler entity holds each of
 *   them with probability `share` (about half by default), appended in
 *   parentheses to one of its observations chosen at random.
 * - Needles: `needles` entities, each the clear best match for its own pair of
 *   common words: all four of its observations are short and hold both words
 *   (a filler entity holds each word at most once). They are spread evenly
 *   over the load order, needle k at index floor((k + 0.5) × size / needles),
 *   so the oldest is written first and the newest last; a needle keeps its
 *   filler's name and type and holds no other common word.
 * - Queries: one per needle ("a b", its pair), one per pair of common words no
 *   needle holds, and the ordinary bench's query mix (./generate.mjs
 *   searchQueries over the first 1,000 names).
 *
 * ## Invariants
 * - Same size and seed, same corpus, on any machine (seeded PRNG only).
 * - Not prefix-stable: the needles' places depend on the size.
 *
 * Pure JavaScript, no Node APIs: the engine bench runs it inside workerd.
 */
import { generateGraph, prng, searchQueries } from "./generate.mjs";

// biome-ignore format: a word list, packed
export const COMMON_WORDS = [
  "nginx", "grafana", "datadog", "pagerduty", "rabbitmq", "mongodb", "vitess", "istio", "jenkins", "hadoop", "twilio", "okta",
];

/** The needles' four observations: short, both words in each, a few words apart at most. */
const NEEDLE_TEMPLATES = ["{a} and {b} failed together", "{b} alerts traced to {a}", "moved {a} behind {b}", "{a} {b} handover notes"];

/** Every unordered pair of `words`, in a fixed order. */
function pairs(words) {
  const out = [];
  for (let i = 0; i < words.length; i++) for (let j = i + 1; j < words.length; j++) out.push([words[i], words[j]]);
  return out;
}

/**
 * A depth corpus of `size` entities (see the module comment).
 * @returns {{ entities: {name: string, entityType: string, observations: string[]}[],
 *             needles: {index: number, name: string, words: [string, string], query: string}[],
 *             queries: {needles: string[], pairs: string[], mix: string[]} }}
 */
export function depthCorpus(size, seed = 1, { needles = 30, share = 0.5, mix = 100 } = {}) {
  const all = pairs(COMMON_WORDS);
  if (needles > all.length) throw new Error(`at most ${all.length} needles (one per pair of common words), got ${needles}`);
  if (needles > size) throw new Error(`at most one needle per entity: ${needles} needles for ${size} entities`);
  const rand = prng(seed ^ 0xd3e7);
  // The pairs in a seeded order: the first `needles` get a needle each.
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  const graph = generateGraph(size, seed);
  const planted = new Map();
  for (let k = 0; k < needles; k++) planted.set(Math.floor(((k + 0.5) * size) / needles), all[k]);

  const entities = graph.entities.map((e, index) => {
    const pair = planted.get(index);
    if (pair) {
      const [a, b] = pair;
      return { name: e.name, entityType: e.entityType, observations: NEEDLE_TEMPLATES.map((t) => t.replace("{a}", a).replace("{b}", b)) };
    }
    const observations = [...e.observations];
    for (const word of COMMON_WORDS) {
      if (rand() >= share) continue;
      const at = Math.floor(rand() * observations.length);
      observations[at] = `${observations[at]} (${word})`;
    }
    return { name: e.name, entityType: e.entityType, observations };
  });
  const needleList = [...planted].map(([index, words]) => ({ index, name: entities[index].name, words, query: words.join(" ") }));
  return {
    entities,
    needles: needleList,
    queries: {
      needles: needleList.map((n) => n.query),
      pairs: all.slice(needles).map((p) => p.join(" ")),
      mix: searchQueries(
        graph.entities.slice(0, 1000).map((e) => e.name),
        mix,
        seed,
      ),
    },
  };
}

/** Which of `buckets` equal slices of the load order (0 = oldest) entity `index` of `size` falls in. */
export const ageBucket = (index, size, buckets) => Math.min(buckets - 1, Math.floor((index * buckets) / size));
