import { z } from "zod";
import { DUPLICATE_MAX_LIMIT } from "../../graph/duplicates";
import { intIn, numberIn, typeName } from "../schemas";
import { callContext, defineTool, READ, reply } from "../tool";

export default defineTool({
  name: "find_duplicates",
  toolset: "graph",
  title: "Find Duplicates",
  description: "Entity pairs likely naming one thing, scored 0..1 with reasons. Fold with merge_entities.",
  input: {
    entityType: typeName("entityType").optional(),
    limit: intIn("limit", 1, DUPLICATE_MAX_LIMIT).optional(),
    minScore: numberIn("minScore", 0, 1).optional(),
  },
  output: {
    pairs: z.array(z.object({ a: z.string(), b: z.string(), score: z.number(), reasons: z.array(z.string()) })),
  },
  annotations: READ,
  access: "read",
  run: ({ entityType, limit, minScore, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) =>
        resolved.stub.findDuplicates(
          { ...(entityType !== undefined && { entityType }), ...(limit !== undefined && { limit }), ...(minScore !== undefined && { minScore }) },
          resolved.meta,
        ),
      (r, resolved) => reply(resolved.name, { pairs: r.pairs }),
    ),
});
