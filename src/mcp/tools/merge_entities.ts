import { z } from "zod";
import { batch, entityName } from "../schemas";
import { callContext, defineTool, DESTRUCTIVE, reply } from "../tool";

export default defineTool({
  name: "merge_entities",
  toolset: "graph",
  title: "Merge Entities",
  description: "Fold sources into target as one undoable change; their names become aliases of target.",
  input: { target: entityName, sources: batch(entityName).min(1, "sources: name at least one entity") },
  output: {
    target: z.string(),
    merged: z.array(z.string()),
    observationsAdded: z.number(),
    relationsMoved: z.number(),
    relationsDropped: z.number(),
    aliases: z.array(z.string()),
    change: z.number(),
  },
  annotations: DESTRUCTIVE,
  access: "write",
  run: ({ target, sources, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.mergeEntities(target, sources, resolved.meta),
      (r, resolved) =>
        reply(
          resolved.name,
          { ...r },
          `Merged ${r.merged.map((n) => JSON.stringify(n)).join(", ")} into ${JSON.stringify(r.target)} as change #${r.change}: ${r.observationsAdded} observations added, ${r.relationsMoved} relations moved, ${r.relationsDropped} dropped (already there or self-loops). To take this back: undo{change: ${r.change}}.`,
        ),
    ),
});
