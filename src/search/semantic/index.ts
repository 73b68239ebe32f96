/** Semantic search: embedders (./embedder.ts), stored vectors and nearest() (./vectors.ts), the embedding queue (./queue.ts), a query's nearest items (./query.ts). */
export { type AiBinding, type Embedder, normalize, WorkersAiEmbedder } from "./embedder";
export { catchUp, configureEmbedding, embeddingQueued, embeddingStatus, type EmbeddingStatus, itemText, type SearchMode } from "./queue";
export { currentModel, nearest, type Neighbour, readVector, storeVector } from "./vectors";
export { nearestToQuery } from "./query";
