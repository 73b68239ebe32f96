/**
 * Parsing memory.jsonl (the official server's format) into validated import
 * items. Every line is checked on its own; a bad line is reported with its
 * number and never stops the good ones.
 */
import { z } from "zod";
import type { ImportItem } from "../graph/import";
import { categoryField, EntitySchema, NewRelationSchema, newEntityName, newTypeName, observationText } from "../mcp/schemas";
import { ARCHIVE_MAX_ROWS } from "../priority/archive";
import type { ArchivedImport } from "../priority/transfer";
import { describeMalformed, malformedIn } from "../text";
import { LIMITS } from "../limits";

// category, important and aliases are engram's optional extras (written by its export); the official server ignores them.
const EntityLine = EntitySchema.extend({
  type: z.literal("entity"),
  important: z.boolean().optional(),
  aliases: z.array(newEntityName).max(LIMITS.batchItems, `at most ${LIMITS.batchItems} aliases`).optional(),
});
const RelationLine = NewRelationSchema.extend({ type: z.literal("relation") });
// Archived rows (src/priority/transfer.ts): each relation has the line's entity at one end, as the archive keeps them.
const archivedRelations = z.array(NewRelationSchema).max(ARCHIVE_MAX_ROWS, `at most ${ARCHIVE_MAX_ROWS} relations`);
const archivedRow = {
  name: newEntityName,
  relations: archivedRelations,
  priority: z.number().min(0, "priority must not be negative"),
  reason: z.string().min(1, "reason must not be empty").max(2000, "reason must be at most 2000 characters"),
  archivedAt: z.iso.datetime({ error: "archivedAt must be an ISO time such as 2026-01-31T12:00:00.000Z" }),
};
const endsAtName = (v: { name: string; relations: { from: string; to: string }[] }) => v.relations.every((r) => r.from === v.name || r.to === v.name);
const endsMessage = { message: "every relation must start or end at the entity named by `name`", path: ["relations"] };
const ArchivedEntityLine = z
  .object({
    type: z.literal("archived_entity"),
    entityType: newTypeName("entityType"),
    observations: z.array(observationText).max(ARCHIVE_MAX_ROWS, `at most ${ARCHIVE_MAX_ROWS} observations`),
    aliases: z.array(newEntityName).max(LIMITS.batchItems, `at most ${LIMITS.batchItems} aliases`).optional(),
    category: categoryField.optional(),
    ...archivedRow,
  })
  .refine((v) => v.observations.length + v.relations.length <= ARCHIVE_MAX_ROWS, `at most ${ARCHIVE_MAX_ROWS} observations and relations together`)
  .refine(endsAtName, endsMessage);
const ArchivedRelationsLine = z
  .object({ type: z.literal("archived_relations"), ...archivedRow })
  .refine((v) => v.relations.length > 0, { message: "relations must not be empty", path: ["relations"] })
  .refine(endsAtName, endsMessage);
const Line = z.discriminatedUnion("type", [EntityLine, RelationLine, ArchivedEntityLine, ArchivedRelationsLine]);

export interface ParsedJsonl {
  entities: ImportItem[];
  relations: ImportItem[];
  archived: ArchivedImport[];
  rejected: { line: number; error: string }[];
}

const describe = (error: z.ZodError) => error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");

/** `firstLine` numbers the lines of a file sent in several parts. */
export function parseJsonl(text: string, firstLine = 1): ParsedJsonl {
  const out: ParsedJsonl = { entities: [], relations: [], archived: [], rejected: [] };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] ?? "").trim();
    const line = firstLine + i;
    if (raw === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      out.rejected.push({ line, error: "not valid JSON" });
      continue;
    }
    // A "\ud800" escape parses to a lone surrogate, which storage could not keep as sent (src/text.ts).
    const malformed = malformedIn(json);
    if (malformed) {
      out.rejected.push({ line, error: describeMalformed(malformed) });
      continue;
    }
    const parsed = Line.safeParse(json);
    if (!parsed.success) {
      out.rejected.push({ line, error: describe(parsed.error) });
      continue;
    }
    const v = parsed.data;
    if (v.type === "entity") {
      const entity: ImportItem & { type: "entity" } = { line, type: "entity", entity: { name: v.name, entityType: v.entityType, observations: v.observations } };
      if (v.category !== undefined) entity.entity.category = v.category;
      if (v.important === true) entity.entity.important = true;
      if (v.aliases !== undefined && v.aliases.length > 0) entity.entity.aliases = v.aliases;
      out.entities.push(entity);
    } else if (v.type === "relation") {
      out.relations.push({ line, type: "relation", relation: { from: v.from, to: v.to, relationType: v.relationType } });
    } else {
      out.archived.push({ ...v, line, archivedAt: Date.parse(v.archivedAt) });
    }
  }
  return out;
}
