/**
 * Priority as a MemoryContext call uses it: brief (./brief.ts), completion
 * (./complete.ts), the capacity and its evaluation (./evaluate.ts), the
 * importance mark (./mark.ts), the archive's listing and restore
 * (./restore.ts) and export (./transfer.ts), and the deployment's model
 * (./weights.ts). Inside priority, and for the other domains, modules import
 * the file that holds what they need.
 */
export { brief, type Brief, type BriefOptions } from "./brief";
export type { CapacityLimits } from "./capacity";
export { completeItems, type Completion } from "./complete";
export { EVALUATION_META, evaluateIfDue, evaluationOptions, setCapacity } from "./evaluate";
export { markImportant, type MarkResult } from "./mark";
export { listArchive, restoreArchived, type ArchiveListing, type RestoreReport, type RestoreSelection } from "./restore";
export type { MemoryStats } from "./stats";
export { exportArchivePage } from "./transfer";
export { modelOptions } from "./weights";
