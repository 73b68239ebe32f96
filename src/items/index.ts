/**
 * Memory items: their kinds, keys and tables (./keys.ts), the statistics on
 * their rows (./stats.ts) and what a call did to them (./effects.ts).
 */
export type { Access, AccessKind, ItemEffects, Move } from "./effects";
export { ITEM_KINDS, ITEM_TABLES, byKind, isItemKind, itemKey, itemRef, parseKey, type ItemKind, type ItemRef, type ItemTable, type ParsedKey } from "./keys";
export { STATS_COLUMNS, statsOf, statsPlaceholders, statsValues, type ItemStats, type StatsRow } from "./stats";
