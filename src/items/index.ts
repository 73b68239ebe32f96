/**
 * Memory items: their kinds, keys and tables (./keys.ts), the statistics on
 * their rows (./stats.ts) and what a call did to them (./effects.ts).
 */
export { accessed, type Access, type AccessKind, type ItemEffects, type ItemSink, type Move, type WithEffects } from "./effects";
export { ITEM_KINDS, ITEM_TABLES, byKind, isItemKind, itemKey, itemRef, parseKey, type ItemKind, type ItemRef, type ParsedKey } from "./keys";
export { CATEGORIES, isCategory, STATS_COLUMNS, statsOf, statsPlaceholders, statsValues, type Category, type ItemStats, type StatsRow } from "./stats";
export { listItems, type ItemListing, type ItemPosition } from "./list";
export { classifyDocument, classifyEntity, classifyFile } from "./classify";
export { rankByText } from "./text-rank";
export {
  contentHeads,
  countByText,
  NO_MATCH_NOTE,
  NO_TERMS_NOTE,
  type RankTextOptions,
  type TextBoost,
  type TextHit,
  type TextIndex,
  type TextQuery,
  type TextQueryTerm,
  type TextTerm,
} from "./text-index";
