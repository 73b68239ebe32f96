import { batch, DeleteOut, RelationSchema } from "../schemas";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "delete_relations",
  toolset: "graph",
  title: "Delete Relations",
  description: "Delete multiple relations from the knowledge graph. Relations not found are reported in the message.",
  input: { relations: batch(RelationSchema).describe("An array of relations to delete") },
  output: DeleteOut,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: ({ relations, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.deleteRelations(relations, c.meta),
      (r, c) => reply(c.name, { ...r }, r.message),
    ),
});
