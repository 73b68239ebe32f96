/**
 * Importing memory.jsonl lines (the official server's file format) into a
 * context. The Worker parses and validates each line; this module applies
 * already-valid items inside the caller's transaction (src/context/importing.ts
 * decides the transactions and rejects a line that fails while applied).
 *
 * An entity that already exists keeps its type and gains the observations it
 * did not have; a relation whose ends do not exist is rejected with its line
 * number (the official server would store it dangling).
 */
import type { WriteScope } from "../history";
import { addAliasesUnlessTaken } from "./aliases";
import { idsByName } from "./rows";
import { addObservations, createEntities } from "./store";
import { insertRelation } from "./writes";
import type { EntityInput, Relation } from "./types";

export type ImportItem = { line: number; type: "entity"; entity: EntityInput } | { line: number; type: "relation"; relation: Relation };

export interface ImportReport {
  entitiesCreated: number;
  entitiesMerged: number;
  observationsAdded: number;
  relationsCreated: number;
  duplicates: number;
  /** Archived items written back to the archive (src/priority/transfer.ts); counted here so one report covers a file. */
  archivedAdded: number;
  rejected: { line: number; error: string }[];
}

export const emptyImportReport = (): ImportReport => ({
  entitiesCreated: 0,
  entitiesMerged: 0,
  observationsAdded: 0,
  relationsCreated: 0,
  duplicates: 0,
  archivedAdded: 0,
  rejected: [],
});

/** Adds `from`'s counts and rejected lines to `into`. */
export function addReport(into: ImportReport, from: ImportReport): void {
  into.entitiesCreated += from.entitiesCreated;
  into.entitiesMerged += from.entitiesMerged;
  into.observationsAdded += from.observationsAdded;
  into.relationsCreated += from.relationsCreated;
  into.duplicates += from.duplicates;
  into.archivedAdded += from.archivedAdded;
  into.rejected.push(...from.rejected);
}

/**
 * Gives the line's entity the aliases its line lists (engram's export writes
 * them); one that names an entity or another entity's alias is not added,
 * and said so in the report. Returns that problem, if any.
 */
function importAliases(w: WriteScope, entity: EntityInput): string | undefined {
  if (!entity.aliases) return undefined;
  const id = idsByName(w.db, [entity.name]).get(entity.name) as number;
  const refused = addAliasesUnlessTaken(
    w,
    id,
    entity.name,
    entity.aliases.map((alias) => ({ alias })),
  );
  if (refused.length === 0) return undefined;
  return `aliases not added (each names an entity or another entity's alias): ${refused.map((r) => JSON.stringify(r.alias)).join(", ")}`;
}

export function importItems(w: WriteScope, items: readonly ImportItem[]): ImportReport {
  const report = emptyImportReport();
  for (const item of items) {
    if (item.type === "entity") {
      const [created] = createEntities(w, [item.entity]);
      const problem = importAliases(w, item.entity);
      if (problem) report.rejected.push({ line: item.line, error: problem });
      if (created) {
        report.entitiesCreated++;
        report.observationsAdded += created.observations.length;
        continue;
      }
      const [merged] = addObservations(w, [{ entityName: item.entity.name, contents: item.entity.observations }]);
      const added = merged?.addedObservations.length ?? 0;
      if (added > 0) report.entitiesMerged++;
      else report.duplicates++;
      report.observationsAdded += added;
      continue;
    }
    const r = item.relation;
    const ids = idsByName(w.db, [r.from, r.to]);
    const missing = [r.from, r.to].filter((n) => !ids.has(n));
    if (missing.length > 0) {
      report.rejected.push({ line: item.line, error: `relation names a missing entity: ${[...new Set(missing)].map((n) => JSON.stringify(n)).join(", ")}` });
      continue;
    }
    if (insertRelation(w, ids.get(r.from) as number, ids.get(r.to) as number, r)) report.relationsCreated++;
    else report.duplicates++;
  }
  return report;
}
