import { z } from "zod";
import { LIMITS } from "../../limits";
import { SEARCH_RANGES } from "../../limits";
import { EntityOut, RelationOut } from "../schemas";
import { callContext, defineTool, reply } from "../tool";

const int = (r: { min: number; max: number }, what: string) =>
  z.number().int(`${what} must be a whole number`).min(r.min, `${what} must be at least ${r.min}`).max(r.max, `${what} must be at most ${r.max}`);

export default defineTool({
  name: "search_nodes",
  toolset: "graph",
  title: "Search Nodes",
  description:
    'Search entity names, types and observations. Returns the best entity per query term (role "entry"), the entities connecting them ("connector"), the relations among them and the connecting paths.',
  input: {
    query: z
      .string()
      .max(LIMITS.queryChars, `query must be at most ${LIMITS.queryChars} characters`)
      .describe("The search query to match against entity names, types, and observation content"),
    limit: int(SEARCH_RANGES.maxTotalNodes, "limit").optional().describe("Most entities returned"),
    minRelativeScore: z
      .number()
      .min(SEARCH_RANGES.minRelativeScore.min, "minRelativeScore must be between 0 and 1")
      .max(SEARCH_RANGES.minRelativeScore.max, "minRelativeScore must be between 0 and 1")
      .optional()
      .describe("Entry nodes score at least this share of their term's best (default 0.3)"),
    topPerToken: int(SEARCH_RANGES.topPerToken, "topPerToken").optional().describe("Entry nodes per term (default 1)"),
    maxPathLength: int(SEARCH_RANGES.maxPathLength, "maxPathLength").optional().describe("Longest path between entry nodes, in relations; 0 = none (default 5)"),
    maxTotalNodes: int(SEARCH_RANGES.maxTotalNodes, "maxTotalNodes").optional().describe("Most entities, entry nodes first (default 50)"),
  },
  output: {
    entities: z.array(EntityOut.extend({ score: z.number(), role: z.enum(["entry", "connector"]) })),
    relations: z.array(RelationOut),
    paths: z.array(z.array(z.string())).describe("Entity names from one entry node to another"),
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: ({ query, context, ...options }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.searchNodes(query, options, c.meta),
      (result, c) => reply(c.name, { ...result }),
    ),
});
