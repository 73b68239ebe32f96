/** Types for vectors.mjs. */
export const NOISE: number;
export function clusteredVectors(n: number, dims: number, seed?: number): Float32Array[];
export function clusteredQueries(n: number, dims: number, count: number, seed?: number, noise?: number): Float32Array[];
export function clusteredSource(n: number, dims: number, seed?: number, noise?: number): () => Float32Array;
export function uniformSource(dims: number, seed?: number): () => Float32Array;
