import { z } from "zod";
import { LIMITS } from "../../limits";
import { EntityOut, RelationOut } from "../schemas";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "search_nodes",
  toolset: "graph",
  title: "Search Nodes",
  description: "Search for nodes in the knowledge graph based on a query matched against entity names, types and observations.",
  input: {
    query: z
      .string()
      .max(LIMITS.queryChars, `query must be at most ${LIMITS.queryChars} characters`)
      .describe("The search query to match against entity names, types, and observation content"),
    limit: z.number().int().min(1).max(200).optional().describe("Most entities to return (default 50)"),
  },
  output: { entities: z.array(EntityOut), relations: z.array(RelationOut) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: ({ query, limit, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.searchNodes(query, { limit }, c.meta),
      (graph, c) => reply(c.name, { ...graph }),
    ),
});
