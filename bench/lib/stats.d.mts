/** Types for stats.mjs, so bench/engine (TypeScript, inside workerd) summarizes as the rest of the bench does. */
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}
export function percentile(sorted: number[], p: number): number | null;
export function summarize(samples: number[]): Summary | null;
export function resolution(samples: number[]): { smallestStepMs: number | null; fractional: boolean };
