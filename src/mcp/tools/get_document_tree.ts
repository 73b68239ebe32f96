import { z } from "zod";
import { renderTree } from "../../documents/yaml";
import { callDocuments } from "../documents";
import { defineTool, reply } from "../tool";

export default defineTool({
  name: "get_document_tree",
  toolset: "documents",
  title: "Get Document Tree",
  description: "The working-memory hierarchy from root as YAML: nested ids in link order; with titles, each title line as a comment.",
  input: { titles: z.boolean().optional().describe("Add each document's title line (default false)") },
  output: { yaml: z.string(), documents: z.number().int().describe("How many documents the tree holds") },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: ({ titles, context }, ctx) =>
    callDocuments(
      ctx,
      context,
      (c) => c.stub.documentTree(c.meta),
      ({ root, count }, c) => {
        const yaml = renderTree(root, titles ?? false);
        return reply(c.name, { yaml, documents: count }, yaml);
      },
    ),
});
