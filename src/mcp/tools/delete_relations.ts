import { batch, DeleteOut, RelationSchema } from "../schemas";
import { callContext, defineTool, DESTRUCTIVE, reply } from "../tool";

export default defineTool({
  name: "delete_relations",
  toolset: "graph",
  title: "Delete Relations",
  description: "Delete relations; reports missing ones.",
  input: { relations: batch(RelationSchema) },
  output: DeleteOut,
  annotations: DESTRUCTIVE,
  access: "write",
  listOutputSchema: true,
  run: ({ relations, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.deleteRelations(relations, c.meta),
      (r, c) => reply(c.name, { ...r }, r.message),
    ),
});
