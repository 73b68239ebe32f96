/**
 * Search parameters: per-call options over the deployment's settings
 * (wrangler vars, validated in src/settings.ts). Both accept the ranges of
 * SEARCH_RANGES (src/limits.ts).
 */
import type { Settings } from "../settings";

/** What a search_nodes call may set; anything left out comes from the settings. */
export interface SearchOptions {
  /** Most entities returned (defaults to maxTotalNodes). */
  limit?: number;
  minRelativeScore?: number;
  topPerToken?: number;
  maxPathLength?: number;
  maxTotalNodes?: number;
}

export interface SearchParams {
  /** An entity is an entry node when it scores at least this share of the best whole-query score (or, for a term's own entries, of the term's best). */
  minRelativeScore: number;
  /** Entry nodes each term brings besides the whole-query matches. */
  topPerToken: number;
  /** Longest path (in relations) between two entry nodes. */
  maxPathLength: number;
  /** Most entities in the result, entry nodes first. */
  maxTotalNodes: number;
}

type SearchSettings = Pick<Settings, "SEARCH_MIN_RELATIVE_SCORE" | "SEARCH_TOP_PER_TOKEN" | "SEARCH_MAX_PATH_LENGTH" | "SEARCH_MAX_TOTAL_NODES">;

export function searchParams(opts: SearchOptions, s: SearchSettings): SearchParams {
  const maxTotalNodes = opts.maxTotalNodes ?? s.SEARCH_MAX_TOTAL_NODES;
  return {
    minRelativeScore: opts.minRelativeScore ?? s.SEARCH_MIN_RELATIVE_SCORE,
    topPerToken: opts.topPerToken ?? s.SEARCH_TOP_PER_TOKEN,
    maxPathLength: opts.maxPathLength ?? s.SEARCH_MAX_PATH_LENGTH,
    maxTotalNodes: opts.limit === undefined ? maxTotalNodes : Math.min(opts.limit, opts.maxTotalNodes ?? opts.limit),
  };
}
