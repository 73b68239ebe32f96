/** Types for generate.mjs, so the generator test typechecks. */
export interface BenchEntity {
  name: string;
  entityType: string;
  observations: string[];
}
export interface BenchRelation {
  from: string;
  to: string;
  relationType: string;
}
export interface BenchGraph {
  entities: BenchEntity[];
  relations: BenchRelation[];
}
export function prng(seed: number): () => number;
export function generateGraph(size: number, seed?: number): BenchGraph;
export function prefix(graph: BenchGraph, size: number): BenchGraph;
export function searchQueries(names: string[], count?: number, seed?: number): string[];
export function openNodeSets(names: string[], count?: number, seed?: number): string[][];
