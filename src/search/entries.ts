/**
 * Entry-node selection: one concept per query term.
 *
 * Terms pick in order of rarity (highest idf first, then query order). For
 * each term, the entities scoring at least `minRelativeScore` of the term's
 * best are eligible, and the best `topPerToken` of them that no earlier term
 * has taken become entry nodes. So an entity that mentions every term enters
 * once, and the other terms still bring their own entities when those score
 * close enough to it.
 */
export interface TermScores {
  /** Position of the term in the query. */
  index: number;
  idf: number;
  /** Score of each candidate entity for this term. */
  scores: Map<number, number>;
}

export interface Entry {
  id: number;
  /** Position of the term that chose it. */
  term: number;
}

export function chooseEntries(terms: readonly TermScores[], minRelativeScore: number, topPerToken: number): Entry[] {
  const order = [...terms].sort((a, b) => b.idf - a.idf || a.index - b.index);
  const taken = new Set<number>();
  const entries: Entry[] = [];
  for (const t of order) {
    const ranked = [...t.scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const best = ranked[0]?.[1] ?? 0;
    if (best <= 0) continue;
    let picked = 0;
    for (const [id, score] of ranked) {
      if (picked >= topPerToken || score < minRelativeScore * best) break;
      if (taken.has(id)) continue;
      taken.add(id);
      entries.push({ id, term: t.index });
      picked++;
    }
  }
  return entries;
}
