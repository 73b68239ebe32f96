/** Semantic search: embedders (./embedder.ts), stored vectors (./vectors.ts), their IVF index (./ivf.ts), the embedding queue (./queue.ts), a query's nearest items (./query.ts). */
export { type AiBinding, type Embedder, WorkersAiEmbedder } from "./embedder";
export { blocksStale, indexBehind, indexStep } from "./ivf";
export { catchUp, configureEmbedding, embeddingQueued, embeddingStatus, type EmbeddingStatus } from "./queue";
export { readVector } from "./vectors";
export { nearestToQuery, type Neighbour } from "./query";
