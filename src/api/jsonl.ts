/**
 * Parsing memory.jsonl (the official server's format) into validated import
 * items. Every line is checked on its own; a bad line is reported with its
 * number and never stops the good ones.
 */
import { z } from "zod";
import type { ImportItem } from "../graph/import";
import { EntitySchema, RelationSchema } from "../mcp/schemas";

// category and important are engram's optional extras (written by its export); the official server ignores them.
const EntityLine = EntitySchema.extend({ type: z.literal("entity"), important: z.boolean().optional() });
const RelationLine = RelationSchema.extend({ type: z.literal("relation") });
const Line = z.discriminatedUnion("type", [EntityLine, RelationLine]);

export interface ParsedJsonl {
  entities: ImportItem[];
  relations: ImportItem[];
  rejected: { line: number; error: string }[];
}

const describe = (error: z.ZodError) => error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");

/** `firstLine` numbers the lines of a file sent in several parts. */
export function parseJsonl(text: string, firstLine = 1): ParsedJsonl {
  const out: ParsedJsonl = { entities: [], relations: [], rejected: [] };
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
      out.entities.push(entity);
    } else {
      out.relations.push({ line, type: "relation", relation: { from: v.from, to: v.to, relationType: v.relationType } });
    }
  }
  return out;
}
