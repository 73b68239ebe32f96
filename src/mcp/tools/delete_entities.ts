import { batch, DeleteOut, entityName } from "../schemas";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "delete_entities",
  toolset: "graph",
  title: "Delete Entities",
  description: "Delete multiple entities and their relations from the knowledge graph. Names that do not exist are reported in the message.",
  input: { entityNames: batch(entityName).describe("An array of entity names to delete") },
  output: DeleteOut,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: ({ entityNames, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.deleteEntities(entityNames, c.meta),
      (r, c) => reply(c.name, { success: r.success, message: r.message }, r.message),
    ),
});
