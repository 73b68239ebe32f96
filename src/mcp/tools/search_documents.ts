import { z } from "zod";
import { LIMITS } from "../../limits";
import { callDocuments } from "../documents";
import { cutNote, cutQuery, intIn } from "../schemas";
import { defineTool, READ, reply } from "../tool";

/** Results one call returns when it gives no limit. */
const DEFAULT_LIMIT = 20;

export default defineTool({
  name: "search_documents",
  toolset: "documents",
  title: "Search Documents",
  description: `Search working-memory documents, best first: any word may match (stemmed), documents holding every word first. ${cutNote}`,
  input: {
    query: z.string().min(1, "query must not be empty"),
    limit: intIn("limit", 1, LIMITS.documentSearchResults).optional(),
  },
  output: { results: z.array(z.object({ id: z.string(), title: z.string(), snippet: z.string() })), note: z.string().optional() },
  annotations: READ,
  access: "read",
  run: ({ query, limit, context }, ctx) =>
    callDocuments(
      ctx,
      context,
      (resolved) => resolved.stub.searchDocuments(cutQuery(query), limit ?? DEFAULT_LIMIT, resolved.meta),
      (found, resolved) => reply(resolved.name, { ...found }),
    ),
});
