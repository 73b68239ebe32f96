/** Types for workload.mjs, for the test of its interleaving (test/bench-support.test.ts). */
import type { Summary } from "./stats.mjs";

export interface Sample {
  ms: number;
  engineMs?: number;
  entities?: number;
  error?: string;
}

export interface KindResult {
  ran: number;
  planned: number;
  cut?: string;
  errors?: { count: number; first: string };
  e2e: Summary | null;
  samples: (number | null)[];
  engine: Summary | null;
  meanEntities?: number;
  emptyResults?: number;
}

export function measureInterleaved<K extends string>(
  kinds: Record<K, (() => Promise<Sample>)[]>,
  options: { budgetMs: number; minCalls?: number; warmup?: number },
): Promise<Record<K, KindResult>>;
