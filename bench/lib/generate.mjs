/**
 * The benchmark's deterministic data: a knowledge graph and a fixed query set
 * from a seed.
 *
 * ## Invariants
 * - Same seed, same output, on any machine (a 32-bit PRNG, no Math.random).
 * - Prefix-stable: the first N entities of `generateGraph(M)` (M > N), with the
 *   relations emitted before entity N, are exactly `generateGraph(N)`. Every
 *   relation and every `Depends on <name>` observation points to an earlier
 *   entity, so a prefix is a closed graph and one generation serves all sizes.
 * - Valid input for both servers: names unique and at most 256 characters,
 *   observations unique within an entity, relations unique, no self-loops.
 *
 * Pure JavaScript, no Node APIs: the generator test runs inside workerd.
 */
import { ENTITY_TYPES, PEOPLE, RELATION_TYPES, TEMPLATES, TERMS } from "./vocabulary.mjs";

/** mulberry32: a small, fast, well-mixed 32-bit PRNG returning [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (rand, lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

function shuffled(items, rand) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Draws items with probability proportional to 1 / rank^s (rank 1 = first item). */
function zipf(items, s, rand) {
  const cdf = [];
  let total = 0;
  for (let r = 1; r <= items.length; r++) cdf.push((total += 1 / r ** s));
  return () => {
    const u = rand() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < u) lo = mid + 1;
      else hi = mid;
    }
    return items[lo];
  };
}

/** Up to `n` distinct draws (a name or query rarely repeats a word). */
function distinct(draw, n) {
  const out = new Set();
  for (let tries = 0; out.size < n && tries < n * 4; tries++) out.add(draw());
  return out;
}

const capital = (w) => w.charAt(0).toUpperCase() + w.slice(1);

/** Joins terms as kebab-case (most names), camelCase or snake_case. */
function styleName(parts, rand) {
  const u = rand();
  if (u < 0.6) return parts.join("-");
  if (u < 0.8) return parts[0] + parts.slice(1).map(capital).join("");
  return parts.join("_");
}

function fillTemplate(template, pick) {
  return template.replace(/\{([tTepny])\}/g, (_, slot) => pick[slot]());
}

/**
 * A graph of `size` entities, about 5 observations and 2 relations each.
 * @returns {{ entities: {name: string, entityType: string, observations: string[]}[],
 *             relations: {from: string, to: string, relationType: string}[] }}
 */
export function generateGraph(size, seed = 1) {
  const rand = prng(seed);
  const terms = shuffled(TERMS, rand);
  const nameTerm = zipf(terms, 0.6, rand);
  const obsTerm = zipf(terms, 0.8, rand);
  const entityType = zipf(ENTITY_TYPES, 1.0, rand);
  const relationType = zipf(RELATION_TYPES, 1.0, rand);
  const template = zipf(TEMPLATES, 0.5, rand);
  const person = zipf(PEOPLE, 1.0, rand);

  const entities = [];
  const relations = [];
  const names = new Set();
  /** An earlier entity: half uniformly, half skewed to the oldest (hubs). */
  const earlier = (i) => (rand() < 0.5 ? Math.floor(rand() * i) : Math.floor(i * rand() ** 3));

  for (let i = 0; i < size; i++) {
    let name = "";
    for (let attempt = 0; attempt < 4 && (name === "" || names.has(name)); attempt++) {
      const parts = distinct(nameTerm, rand() < 0.6 ? 2 : 3);
      name = styleName([...parts], rand);
    }
    if (names.has(name)) name = `${name}-${i.toString(36)}`;
    names.add(name);

    const pick = {
      t: obsTerm,
      T: () => obsTerm().toUpperCase(),
      e: () => (i === 0 ? "the platform" : entities[earlier(i)].name),
      p: person,
      n: () => String(int(rand, 2, 500)),
      y: () => String(int(rand, 2019, 2026)),
    };
    const observations = new Set();
    const want = int(rand, 3, 7);
    for (let tries = 0; observations.size < want && tries < want * 3; tries++) {
      observations.add(fillTemplate(template(), pick));
    }
    entities.push({ name, entityType: entityType(), observations: [...observations] });

    if (i === 0) continue;
    const seen = new Set();
    const count = 1 + (rand() < 0.5 ? 1 : 0) + (rand() < 0.5 ? 1 : 0);
    for (let k = 0; k < count; k++) {
      const to = entities[earlier(i)].name;
      const relation = { from: name, to, relationType: relationType() };
      const key = `${to}\u0000${relation.relationType}`;
      if (seen.has(key)) continue;
      seen.add(key);
      relations.push(relation);
    }
  }
  return { entities, relations };
}

/** The graph's first `size` entities and the relations among them (see the prefix invariant). */
export function prefix(graph, size) {
  const names = new Set(graph.entities.slice(0, size).map((e) => e.name));
  let end = 0;
  while (end < graph.relations.length && names.has(graph.relations[end].from)) end++;
  return { entities: graph.entities.slice(0, size), relations: graph.relations.slice(0, end) };
}

/**
 * `count` search queries of 1 to 4 terms: mostly vocabulary terms (Zipf, so
 * common ones dominate), some parts of entity names, some whole names.
 * `names` should be the same for every size (the first 1,000 entities).
 */
export function searchQueries(names, count = 200, seed = 1) {
  const rand = prng(seed ^ 0x5eed);
  const term = zipf(shuffled(TERMS, prng(seed)), 0.8, rand);
  const nameParts = names.flatMap((n) => n.split(/[-_]|(?=[A-Z])/).map((p) => p.toLowerCase()));
  const queries = [];
  for (let q = 0; q < count; q++) {
    const u = rand();
    const length = u < 0.35 ? 1 : u < 0.65 ? 2 : u < 0.85 ? 3 : 4;
    const word = () => {
      const v = rand();
      if (v < 0.7) return term();
      if (v < 0.9) return nameParts[Math.floor(rand() * nameParts.length)];
      return names[Math.floor(rand() * names.length)];
    };
    queries.push([...distinct(word, length)].join(" "));
  }
  return queries;
}

/** `count` open_nodes calls of 1 to 4 names drawn uniformly from `names`. */
export function openNodeSets(names, count = 200, seed = 1) {
  const rand = prng(seed ^ 0x0be7);
  return Array.from({ length: count }, () => Array.from({ length: int(rand, 1, 4) }, () => names[Math.floor(rand() * names.length)]));
}
