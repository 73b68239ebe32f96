import { batch, DeleteOut, entityName } from "../schemas";
import { callContext, defineTool, DESTRUCTIVE, reply } from "../tool";

export default defineTool({
  name: "delete_entities",
  toolset: "graph",
  title: "Delete Entities",
  description: "Delete entities and their relations; reports missing names.",
  input: { entityNames: batch(entityName) },
  output: DeleteOut,
  annotations: DESTRUCTIVE,
  access: "write",
  listOutputSchema: true,
  run: ({ entityNames, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.deleteEntities(entityNames, resolved.meta),
      (r, resolved) => reply(resolved.name, { success: r.success, message: r.message }, r.message),
    ),
});
