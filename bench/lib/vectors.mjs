/**
 * Seeded synthetic embedding vectors, for measuring nearest-neighbour search
 * (bench/engine/vectors.bench.ts, test/search/semantic-index.test.ts).
 *
 * `clusteredVectors`: a two-level mixture like a corpus of topics and their
 * threads. TOPICS topic directions (Gaussian, so random directions in the
 * space); each cluster = normalize(topic + cluster-noise) with one cluster per
 * CLUSTER_SIZE vectors; each vector = normalize(cluster + noise) with noise
 * of NOISE times the cluster's length. So two vectors of one cluster have a
 * cosine about 0.4, of one topic about 0.2, unrelated ones about 0, and a
 * vector's 50 nearest span several clusters. A larger `noise` blurs the
 * clusters (2: a cosine about 0.2 within a cluster, 0.1 within a topic). Queries are new draws of the
 * same process (`clusteredQueries`), so they sit where the data is.
 * `uniformSource`: directions uniform on the sphere, the worst case for a
 * partition (no structure to find).
 *
 * Same seed, same vectors (the prng of ./generate.mjs); pure JavaScript, it
 * runs inside workerd.
 */
import { prng } from "./generate.mjs";

const TOPICS = 50;
const CLUSTER_SIZE = 100;
export const NOISE = 1.2;

function gaussian(rand) {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

function unit(v) {
  let s = 0;
  for (const x of v) s += x * x;
  const n = Math.sqrt(s) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= n;
  return v;
}

const noisy = (rand, base, amount) => unit(Float32Array.from(base, (x) => x + (amount * gaussian(rand)) / Math.sqrt(base.length)));

/** The mixture's centres for `n` vectors: one per CLUSTER_SIZE, each near one of TOPICS topics. */
function clusters(n, dims, seed) {
  const rand = prng(seed ^ 0x7091c5);
  const topics = Array.from({ length: TOPICS }, () => unit(Float32Array.from({ length: dims }, () => gaussian(rand))));
  return Array.from({ length: Math.max(1, Math.ceil(n / CLUSTER_SIZE)) }, () => noisy(rand, topics[Math.floor(rand() * TOPICS)], 1));
}

/** A source of the `n` unit vectors of `dims` dimensions drawn from the clustered mixture of `seed`, one per call (100,000 at once would not fit an isolate). */
export function clusteredSource(n, dims, seed = 1, noise = NOISE) {
  const centres = clusters(n, dims, seed);
  const rand = prng(seed);
  return () => noisy(rand, centres[Math.floor(rand() * centres.length)], noise);
}

/** The `n` vectors of clusteredSource as an array. */
export function clusteredVectors(n, dims, seed = 1) {
  const next = clusteredSource(n, dims, seed);
  return Array.from({ length: n }, next);
}

/** `count` query vectors from the same mixture as clusteredVectors(n, dims, seed), not among them. */
export function clusteredQueries(n, dims, count, seed = 1, noise = NOISE) {
  const centres = clusters(n, dims, seed);
  const rand = prng(seed ^ 0x9e3779b9);
  return Array.from({ length: count }, () => noisy(rand, centres[Math.floor(rand() * centres.length)], noise));
}

/** A source of unit vectors uniform on the sphere, one per call. */
export function uniformSource(dims, seed = 1) {
  const rand = prng(seed);
  return () => unit(Float32Array.from({ length: dims }, () => gaussian(rand)));
}
