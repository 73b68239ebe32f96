import { z } from "zod";
import { listNames } from "../../errors";
import { EntityOut, EntitySchema, batch } from "../schemas";
import { ADDITIVE, callContext, defineTool, reply } from "../tool";

/**
 * The note naming the entities a call skipped (an existing name, or one
 * given twice in the call), whose observations were therefore not added, or
 * undefined when every entity was created.
 */
function skippedNote(asked: readonly { name: string }[], created: readonly { name: string }[]): string | undefined {
  const unclaimed = new Set(created.map((e) => e.name));
  const skipped = new Set<string>();
  for (const { name } of asked) {
    if (unclaimed.has(name)) unclaimed.delete(name);
    else skipped.add(name);
  }
  if (skipped.size === 0) return undefined;
  const names = [...skipped];
  return `Skipped ${names.length === 1 ? "1 entity that already exists" : `${names.length} entities that already exist`}, and did not add ${names.length === 1 ? "its" : "their"} observations: ${listNames(names)}. Use add_observations to add observations to an existing entity.`;
}

export default defineTool({
  name: "create_entities",
  toolset: "graph",
  title: "Create Entities",
  description: "Create entities, skipping existing names; returns those created.",
  input: { entities: batch(EntitySchema) },
  output: { entities: z.array(EntityOut), note: z.string().optional() },
  annotations: ADDITIVE,
  access: "write",
  listOutputSchema: true,
  run: ({ entities, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.createEntities(entities, resolved.meta),
      (created, resolved) => {
        const note = skippedNote(entities, created);
        return reply(resolved.name, { entities: created, ...(note ? { note } : {}) });
      },
    ),
});
