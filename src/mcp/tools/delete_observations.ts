import { z } from "zod";
import { batch, DeleteOut, entityName, observationText } from "../schemas";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "delete_observations",
  toolset: "graph",
  title: "Delete Observations",
  description: "Delete specific observations from entities. Entities or observations not found are reported in the message.",
  input: {
    deletions: batch(
      z.object({
        entityName: entityName.describe("The name of the entity containing the observations"),
        observations: batch(observationText).describe("An array of observations to delete"),
      }),
    ),
  },
  output: DeleteOut,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: ({ deletions, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.deleteObservations(deletions, c.meta),
      (r, c) => reply(c.name, { ...r }, r.message),
    ),
});
