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
      (resolved) => resolved.stub.deleteRelations(relations, resolved.meta),
      (r, resolved) => reply(resolved.name, { ...r }, r.message),
    ),
});
