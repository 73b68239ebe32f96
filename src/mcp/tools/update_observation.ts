import { z } from "zod";
import { entityName, observationText } from "../schemas";
import { callContext, defineTool, DESTRUCTIVE, reply } from "../tool";

export default defineTool({
  name: "update_observation",
  toolset: "graph",
  title: "Update Observation",
  description: "Replace observation old with new, keeping old as superseded.",
  input: { entityName, old: observationText, new: observationText },
  output: { entityName: z.string(), old: z.string(), new: z.string(), supersededAt: z.string() },
  annotations: DESTRUCTIVE,
  access: "write",
  run: ({ entityName, old, new: next, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.updateObservation({ entityName, old, new: next }, resolved.meta),
      (r, resolved) => reply(resolved.name, { ...r }),
    ),
});
