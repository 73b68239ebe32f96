/**
 * The knowledge graph as a MemoryContext call uses it: the writes
 * (./store.ts), open_nodes (./open.ts), read_graph and the export's pages
 * (./read.ts), as-of reads (./asof.ts) and duplicate candidates
 * (./duplicates.ts). Inside the graph, and for the other domains, modules
 * import the file that holds what they need.
 */
export { readGraphAsOf } from "./asof";
export { relationLabel } from "./rows";
export { browseEntities, entityTypes, graphView, type BrowseOptions, type EntityPage, type GraphView, type GraphViewOptions } from "./browse";
export { findDuplicates, type DuplicateOptions, type DuplicateReport } from "./duplicates";
export { openNodes, type OpenedNodes, type OpenOptions } from "./open";
export { exportPage, type ReadGraphOptions } from "./read";
export {
  addObservations,
  createEntitiesNamingVariants,
  createRelations,
  deleteEntities,
  deleteObservations,
  deleteRelations,
  graphCounts,
  updateObservation,
  type EntitiesCreated,
  type EntitiesDeleted,
  type GraphCounts,
  type ObservationUpdate,
} from "./store";
export type { DeleteReport, EntityInput, GraphPage, ObservationAdd, ObservationDelete, Relation } from "./types";
