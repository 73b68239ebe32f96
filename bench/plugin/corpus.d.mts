/** Types for corpus.mjs, so test/e2e/plugin.e2e.ts typechecks. */
import type { BenchEntity, BenchRelation } from "../lib/generate.mjs";

export const ENTITIES: BenchEntity[];
export const RELATIONS: BenchRelation[];
export const RELEVANT: { prompt: string; key: string }[];
export const CHITCHAT: string[];
