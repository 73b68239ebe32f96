/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): several
 * ranked lists of ids become one, each id scoring Σ 1 / (k + rank) over the
 * lists that hold it (rank 1-based). Only ranks count, so lists whose scores
 * live on different scales (BM25 sums, cosine similarities) fuse without
 * calibration; k = 60 damps the head so one list's first place does not
 * outweigh agreement between lists. Ties keep the first list's order.
 */
export const RRF_K = 60;

export interface RankedId {
  id: number;
  score: number;
}

/** The lists fused, best first; `weights[i]` scales list i's share (1 by default). */
export function reciprocalRankFusion(lists: readonly (readonly RankedId[])[], k = RRF_K, weights: readonly number[] = []): RankedId[] {
  const fused = new Map<number, { score: number; first: number }>();
  let position = 0;
  lists.forEach((list, i) => {
    const w = weights[i] ?? 1;
    const seen = new Set<number>();
    list.forEach(({ id }, rank) => {
      if (seen.has(id)) return;
      seen.add(id);
      const entry = fused.get(id) ?? { score: 0, first: position++ };
      entry.score += w / (k + rank + 1);
      fused.set(id, entry);
    });
  });
  return [...fused].sort((a, b) => b[1].score - a[1].score || a[1].first - b[1].first).map(([id, { score }]) => ({ id, score }));
}
