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
      (resolved) => resolved.stub.createEntities(entities, resolved.meta),
      (created, resolved) => reply(resolved.name, { entities: created }),
    ),
});
