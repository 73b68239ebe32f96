import { z } from "zod";
import { NewRelationSchema, RelationOut, batch } from "../schemas";
import { ADDITIVE, callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "create_relations",
  toolset: "graph",
  title: "Create Relations",
  description: "Create relations (active voice) between existing entities; a missing end rejects the call, existing ones are skipped.",
  input: { relations: batch(NewRelationSchema) },
  output: { relations: z.array(RelationOut) },
  annotations: ADDITIVE,
  access: "write",
  listOutputSchema: true,
  run: ({ relations, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.createRelations(relations, resolved.meta),
      (created, resolved) => reply(resolved.name, { relations: created }),
    ),
});
