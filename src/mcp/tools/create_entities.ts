import { z } from "zod";
import { listNames } from "../../errors";
import type { EntitiesCreated } from "../../graph";
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

/**
 * The note naming existing entities whose names differ from a created one only
 * in letter case: names are case-sensitive, so both stand, but one thing is
 * meant to have one name (the server's instructions: never a second spelling).
 */
function caseNote({ caseVariants, moreCaseVariants }: EntitiesCreated): string | undefined {
  const [first] = caseVariants;
  if (!first) return undefined;
  if (caseVariants.length === 1 && !moreCaseVariants) {
    const [name, existing] = [JSON.stringify(first.name), JSON.stringify(first.existing)];
    return `${name} differs only in letter case from the existing entity ${existing}. If they are the same thing, merge_entities{target: ${existing}, sources: [${name}]} makes them one.`;
  }
  const pairs = caseVariants.map((v) => `${JSON.stringify(v.name)} (existing: ${JSON.stringify(v.existing)})`).join(", ");
  return `Created names that differ only in letter case from existing entities: ${pairs}${moreCaseVariants ? ", and more" : ""}. If they are the same things, merge_entities folds each into the existing one.`;
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
        const note = [skippedNote(entities, created.entities), caseNote(created)].filter((n) => n !== undefined).join(" ");
        return reply(resolved.name, { entities: created.entities, ...(note ? { note } : {}) });
      },
    ),
});
