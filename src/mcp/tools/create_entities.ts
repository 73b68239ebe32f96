import { z } from "zod";
import { EntityOut, EntitySchema, batch } from "../schemas";
import { ADDITIVE, callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "create_entities",
  toolset: "graph",
  title: "Create Entities",
  description: "Create entities, skipping existing names; returns those created.",
  input: { entities: batch(EntitySchema) },
  output: { entities: z.array(EntityOut) },
  annotations: ADDITIVE,
  access: "write",
  listOutputSchema: true,
  run: ({ entities, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.createEntities(entities, c.meta),
      (created, c) => reply(c.name, { entities: created }),
    ),
});
