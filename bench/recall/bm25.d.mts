/** Types for bm25.mjs, for its test (test/bench/recall.test.ts). */
export const STOP_WORDS: ReadonlySet<string>;
export function stem(word: string): string;
export function tokenize(text: string): string[];
export interface Bm25Index {
  size: number;
  avgdl: number;
  idf(term: string): number;
  search(query: string, k?: number): { id: string; score: number }[];
}
export function bm25Index(docs: { id: string; text: string }[], options?: { k1?: number; b?: number }): Bm25Index;
