import { z } from "zod";
import { RelationOut, RelationSchema, batch } from "../schemas";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "create_relations",
  toolset: "graph",
  title: "Create Relations",
  description:
    "Create multiple new relations between existing entities. Relations should be in active voice. Both ends must exist, or nothing is written; existing relations are skipped.",
  input: { relations: batch(RelationSchema).describe("Relations to create") },
  output: { relations: z.array(RelationOut) },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: ({ relations, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.createRelations(relations, c.meta),
      (created, c) => reply(c.name, { relations: created }),
    ),
});
