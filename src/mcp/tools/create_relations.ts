import { z } from "zod";
import { relationLabel, type Relation } from "../../graph";
import { listNames } from "../../errors";
import { NewRelationSchema, RelationOut, batch } from "../schemas";
import { ADDITIVE, callContext, defineTool, reply } from "../tool";

const relationKey = (r: Relation) => JSON.stringify([r.from, r.relationType, r.to]);

/**
 * The note naming the relations a call skipped (one that exists, or one given
 * twice in the call), as create_entities names the entities it skipped, or
 * undefined when every relation was created.
 */
function skippedNote(asked: readonly Relation[], created: readonly Relation[]): string | undefined {
  const unclaimed = new Set(created.map(relationKey));
  const skipped = new Map<string, string>();
  for (const r of asked) {
    const key = relationKey(r);
    if (unclaimed.has(key)) unclaimed.delete(key);
    else skipped.set(key, relationLabel(r));
  }
  if (skipped.size === 0) return undefined;
  const shown = [...skipped.values()];
  return `Skipped ${shown.length === 1 ? "1 relation that already exists" : `${shown.length} relations that already exist`}: ${listNames(shown, 5)}.`;
}

export default defineTool({
  name: "create_relations",
  toolset: "graph",
  title: "Create Relations",
  description: "Create relations (active voice) between existing entities; a missing end rejects the call, existing ones are skipped.",
  input: { relations: batch(NewRelationSchema) },
  output: { relations: z.array(RelationOut), note: z.string().optional() },
  annotations: ADDITIVE,
  access: "write",
  listOutputSchema: true,
  run: ({ relations, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.createRelations(relations, resolved.meta),
      (created, resolved) => {
        const note = skippedNote(relations, created);
        return reply(resolved.name, { relations: created, ...(note ? { note } : {}) });
      },
    ),
});
