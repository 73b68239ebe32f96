/** Types for workload.mjs, for the test of its interleaving (test/bench/support.test.ts). */
import type { Summary } from "./stats.mjs";

/** The `_meta` key engram's tools use for the time spent in the RPC to the object. */
export const RPC_MS_META: string;
/** The request headers that ask engram to put RPC_MS_META in each result. */
export const TIMING_HEADERS: Readonly<Record<string, string>>;

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
  options: { budgetMs: number; minCalls?: number; warmup?: number; afterWarmup?: () => Promise<void>; afterRound?: () => Promise<void> },
): Promise<Record<K, KindResult>>;

export interface RegistryCount {
  calls: number;
  restarts: number;
}

export function registryWatch(read: () => Promise<{ calls: number; since: string } | null>): {
  read(): Promise<void>;
  count(): RegistryCount | null;
};

export function registryRate(
  count: RegistryCount | null,
  measured: Record<string, { ran: number } | undefined>,
): (RegistryCount & { toolCalls: number; per1000: number }) | null;
