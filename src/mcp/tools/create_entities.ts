import { z } from "zod";
import { EntityOut, EntitySchema, batch } from "../schemas";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "create_entities",
  toolset: "graph",
  title: "Create Entities",
  description: "Create multiple new entities in the knowledge graph. Entities whose name already exists are skipped; the result lists only those created.",
  input: { entities: batch(EntitySchema).describe("Entities to create") },
  output: { entities: z.array(EntityOut) },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: ({ entities, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.createEntities(entities, c.meta),
      (created, c) => reply(c.name, { entities: created }),
    ),
});
