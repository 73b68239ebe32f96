/**
 * Duplicate suggestions as the page shows them: find_duplicates' pairs and
 * the merge each button makes. Pure (no DOM).
 */
export interface DuplicatePair {
  a: string;
  b: string;
  score: number;
  reasons: string[];
}

/** The merge_entities call that folds `source` into `target`. */
export const mergeStep = (target: string, source: string) => ({ tool: "merge_entities", args: { target, sources: [source] } });

/** "0.92: same name when normalised; same type (company)". */
export const pairSummary = (p: DuplicatePair): string => `${p.score.toFixed(2)}: ${p.reasons.join("; ")}`;
