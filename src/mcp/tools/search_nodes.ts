import { z } from "zod";
import { SEARCH_RANGES } from "../../limits";
import { asOfArg, cutNote, cutQuery, EntityOut, RelationOut } from "../schemas";
import { callContext, defineTool, READ, reply } from "../tool";

const int = (r: { min: number; max: number }, what: string) =>
  z.number().int(`${what} must be a whole number`).min(r.min, `${what} must be at least ${r.min}`).max(r.max, `${what} must be at most ${r.max}`);

export default defineTool({
  name: "search_nodes",
  toolset: "graph",
  title: "Search Nodes",
  description: `Search entity names, types and observations: the entities matching the query, best first (role entry), entities linking its words (connector), their relations and paths. ${cutNote}`,
  input: {
    query: z.string(),
    limit: int(SEARCH_RANGES.maxTotalNodes, "limit").optional().describe("Like maxTotalNodes"),
    minRelativeScore: z
      .number()
      .min(SEARCH_RANGES.minRelativeScore.min, "minRelativeScore must be between 0 and 1")
      .max(SEARCH_RANGES.minRelativeScore.max, "minRelativeScore must be between 0 and 1")
      .optional()
      .describe("Share of the best score"),
    topPerToken: int(SEARCH_RANGES.topPerToken, "topPerToken").optional().describe("Extra entries per word"),
    maxPathLength: int(SEARCH_RANGES.maxPathLength, "maxPathLength").optional().describe("In relations; 0: no paths"),
    maxTotalNodes: int(SEARCH_RANGES.maxTotalNodes, "maxTotalNodes").optional().describe("Entries first"),
    asOf: asOfArg,
  },
  output: {
    entities: z.array(EntityOut.extend({ score: z.number(), role: z.enum(["entry", "connector"]) })),
    relations: z.array(RelationOut),
    paths: z.array(z.array(z.string())).describe("Entity names from entry to entry"),
    note: z.string().optional(),
    aliases: z.record(z.string(), z.string()).optional(),
  },
  annotations: READ,
  access: "read",
  listOutputSchema: true,
  run: ({ query, context, asOf, ...options }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.searchNodes(cutQuery(query), options, c.meta, asOf),
      (result, c) => reply(c.name, { ...result }),
    ),
});
