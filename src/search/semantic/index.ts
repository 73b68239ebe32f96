/** Semantic search: embedders (./embedder.ts), stored vectors (./vectors.ts), their IVF index (./ivf.ts), the embedding queue (./queue.ts), a query's nearest items (./query.ts). */
export { type AiBinding, type Embedder, normalize, WorkersAiEmbedder } from "./embedder";
export { blocksStale, indexBehind, indexStep } from "./ivf";
export { catchUp, configureEmbedding, embeddingQueued, embeddingStatus, type EmbeddingStatus, itemText, type SearchMode } from "./queue";
export { currentModel, readVector, storeVector } from "./vectors";
export { nearest, nearestExact, nearestToQuery, type Neighbour } from "./query";
