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
      (c) => c.stub.deleteObservations(deletions, c.meta),
      (r, c) => reply(c.name, { ...r }, r.message),
    ),
});
