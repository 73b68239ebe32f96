import { z } from "zod";
import { batch, entityName, observationText } from "../schemas";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "add_observations",
  toolset: "graph",
  title: "Add Observations",
  description: "Add new observations to existing entities. Every entity must exist, or nothing is written; observations an entity already has are skipped.",
  input: {
    observations: batch(
      z.object({
        entityName: entityName.describe("The name of the entity to add the observations to"),
        contents: batch(observationText).describe("An array of observation contents to add"),
      }),
    ),
  },
  output: { results: z.array(z.object({ entityName: z.string(), addedObservations: z.array(z.string()) })) },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  run: ({ observations, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.addObservations(observations, c.meta),
      (results, c) => reply(c.name, { results }),
    ),
});
