import { z } from "zod";
import { batch, DeleteOut, entityName, observationText } from "../schemas";
import { callContext, defineTool, DESTRUCTIVE, reply } from "../tool";

export default defineTool({
  name: "delete_observations",
  toolset: "graph",
  title: "Delete Observations",
  description: "Delete observations from entities; reports missing ones.",
  input: {
    deletions: batch(
      z.object({
        entityName: entityName,
        observations: batch(observationText),
      }),
    ),
  },
  output: DeleteOut,
  annotations: DESTRUCTIVE,
  access: "write",
  listOutputSchema: true,
  run: ({ deletions, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.deleteObservations(deletions, resolved.meta),
      (r, resolved) => reply(resolved.name, { ...r }, r.message),
    ),
});
