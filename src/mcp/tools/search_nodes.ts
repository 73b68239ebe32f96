import { z } from "zod";
import { SEARCH_RANGES } from "../../limits";
import { asOfArg, cutNote, cutQuery, EntityOut, intIn, numberIn, RelationOut } from "../schemas";
import { callContext, defineTool, READ, reply } from "../tool";

export default defineTool({
  name: "search_nodes",
  toolset: "graph",
  title: "Search Nodes",
  description: `Search entity names, types and observations: the entities matching the query, best first (role entry), entities linking its words (connector), their relations and paths. ${cutNote}`,
  input: {
    query: z.string(),
    limit: intIn("limit", SEARCH_RANGES.maxTotalNodes.min, SEARCH_RANGES.maxTotalNodes.max).optional().describe("Like maxTotalNodes"),
    minRelativeScore: numberIn("minRelativeScore", SEARCH_RANGES.minRelativeScore.min, SEARCH_RANGES.minRelativeScore.max)
      .optional()
      .describe("Share of the best score"),
    topPerToken: intIn("topPerToken", SEARCH_RANGES.topPerToken.min, SEARCH_RANGES.topPerToken.max).optional().describe("Extra entries per word"),
    maxPathLength: intIn("maxPathLength", SEARCH_RANGES.maxPathLength.min, SEARCH_RANGES.maxPathLength.max).optional().describe("In relations; 0: no paths"),
    maxTotalNodes: intIn("maxTotalNodes", SEARCH_RANGES.maxTotalNodes.min, SEARCH_RANGES.maxTotalNodes.max).optional().describe("Entries first"),
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
      (resolved) => resolved.stub.searchNodes(cutQuery(query), options, resolved.meta, asOf),
      (result, resolved) => reply(resolved.name, { ...result }),
    ),
});
