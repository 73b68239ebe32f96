import { z } from "zod";
import { batch, entityName, observationText } from "../schemas";
import { ADDITIVE, callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "add_observations",
  toolset: "graph",
  title: "Add Observations",
  description: "Add observations to existing entities (a missing one rejects the call), skipping known ones.",
  input: {
    observations: batch(
      z.object({
        entityName: entityName,
        contents: batch(observationText),
      }),
    ),
  },
  output: { results: z.array(z.object({ entityName: z.string(), addedObservations: z.array(z.string()) })) },
  annotations: ADDITIVE,
  access: "write",
  listOutputSchema: true,
  run: ({ observations, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.addObservations(observations, resolved.meta),
      (results, resolved) => reply(resolved.name, { results }),
    ),
});
