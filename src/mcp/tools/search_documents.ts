import { z } from "zod";
import { LIMITS } from "../../limits";
import { callDocuments } from "../documents";
import { defineTool, reply } from "../tool";

const DEFAULT_LIMIT = 20;

export default defineTool({
  name: "search_documents",
  toolset: "documents",
  title: "Search Documents",
  description: "Full-text search of working-memory documents: every word must match (stemmed; CJK text anywhere). Plain words only, no operators. Best first.",
  input: {
    query: z.string().min(1, "query must not be empty").max(LIMITS.queryChars, `query must be at most ${LIMITS.queryChars} characters`).describe("Words to find"),
    limit: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.documentSearchResults, `limit must be at most ${LIMITS.documentSearchResults}`)
      .optional()
      .describe(`Most results to return (default ${DEFAULT_LIMIT})`),
  },
  output: { results: z.array(z.object({ id: z.string(), title: z.string(), snippet: z.string() })) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: ({ query, limit, context }, ctx) =>
    callDocuments(
      ctx,
      context,
      (c) => c.stub.searchDocuments(query, limit ?? DEFAULT_LIMIT, c.meta),
      (results, c) => reply(c.name, { results }),
    ),
});
