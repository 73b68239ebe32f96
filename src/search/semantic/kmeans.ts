/**
 * Spherical k-means for the vector index (./ivf.ts): centroids of unit
 * vectors by cosine, deterministic (a fixed seed), so the same vectors give
 * the same lists. Pure computation, no storage.
 */

/** Lloyd rounds after seeding: the index refines lists by splitting them later, so a few suffice. */
const KMEANS_ROUNDS = 6;

/** a · b over the shorter length. */
export const dot = (a: Float32Array, b: Float32Array): number => {
  const n = Math.min(a.length, b.length);
  let s = 0;
  for (let i = 0; i < n; i++) s += (a[i] as number) * (b[i] as number);
  return s;
};

/** The unit-length mean of `vectors` (a zero vector when they cancel out). */
export function meanDirection(vectors: readonly Float32Array[]): Float32Array {
  const sum = new Float32Array(vectors[0]?.length ?? 0);
  for (const v of vectors) for (let d = 0; d < sum.length; d++) sum[d] = (sum[d] as number) + (v[d] as number);
  let norm = 0;
  for (const x of sum) norm += x * x;
  return norm > 0 ? sum.map((x) => x / Math.sqrt(norm)) : sum;
}

/** k unit centroids for `vectors`: k-means++ seeding, then `rounds` of assigning each vector to its nearest centroid and re-averaging. */
export function kmeans(vectors: readonly Float32Array[], k: number, rounds = KMEANS_ROUNDS): Float32Array[] {
  const n = vectors.length;
  const dims = vectors[0]?.length ?? 0;
  if (n === 0) return [];
  // k-means++: each next seed is drawn with odds growing with its distance (1 - cosine) from the seeds so far.
  let state = 0x9e3779b9;
  const rand = () => {
    state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    return state / 4294967296;
  };
  const centroids: Float32Array[] = [Float32Array.from(vectors[Math.floor(rand() * n)] as Float32Array)];
  const best = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
  while (centroids.length < Math.min(k, n)) {
    const c = centroids[centroids.length - 1] as Float32Array;
    let total = 0;
    for (let i = 0; i < n; i++) {
      best[i] = Math.max(best[i] as number, dot(vectors[i] as Float32Array, c));
      total += 1 - (best[i] as number);
    }
    let r = rand() * total;
    let pick = n - 1;
    for (let i = 0; i < n; i++) {
      r -= 1 - (best[i] as number);
      if (r <= 0) {
        pick = i;
        break;
      }
    }
    centroids.push(Float32Array.from(vectors[pick] as Float32Array));
  }
  const owner = new Int32Array(n);
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < n; i++) {
      const v = vectors[i] as Float32Array;
      let at = 0;
      let s = Number.NEGATIVE_INFINITY;
      for (let c = 0; c < centroids.length; c++) {
        const d = dot(v, centroids[c] as Float32Array);
        if (d > s) {
          s = d;
          at = c;
        }
      }
      owner[i] = at;
    }
    const sums = centroids.map(() => new Float32Array(dims));
    for (let i = 0; i < n; i++) {
      const sum = sums[owner[i] as number] as Float32Array;
      const v = vectors[i] as Float32Array;
      for (let d = 0; d < dims; d++) sum[d] = (sum[d] as number) + (v[d] as number);
    }
    sums.forEach((sum, c) => {
      let norm = 0;
      for (const x of sum) norm += x * x;
      // An empty cluster keeps its centroid.
      if (norm > 0) centroids[c] = sum.map((x) => x / Math.sqrt(norm));
    });
  }
  return centroids;
}
