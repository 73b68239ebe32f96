/** Types for depth.mjs, for the depth bench (bench/engine/depth.bench.ts) and its test. */
import type { BenchEntity } from "./generate.d.mts";
export const COMMON_WORDS: readonly string[];
export interface Needle {
  index: number;
  name: string;
  words: [string, string];
  query: string;
}
export interface DepthCorpus {
  entities: BenchEntity[];
  needles: Needle[];
  queries: { needles: string[]; pairs: string[]; mix: string[] };
}
export function depthCorpus(size: number, seed?: number, options?: { needles?: number; share?: number; mix?: number }): DepthCorpus;
export function ageBucket(index: number, size: number, buckets: number): number;
