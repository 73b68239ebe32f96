/** Types for weighted.mjs, for its test (test/bench/recall.test.ts). */
export function words(text: string): string[];
export interface WeightedIndex {
  rank(weighted: { term: string; weight: number }[]): number[];
  feedback(top: number[], known: ReadonlySet<string>, n: number, weight: number): { term: string; weight: number }[];
}
export function weightedIndex(docs: { text: string }[]): WeightedIndex;
