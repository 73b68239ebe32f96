import { z } from "zod";
import { renderTree } from "../../documents/yaml";
import { callDocuments } from "../documents";
import { defineTool, READ, reply } from "../tool";

export default defineTool({
  name: "get_document_tree",
  toolset: "documents",
  title: "Get Document Tree",
  description: "Document ids as a YAML tree from root, in link order; titles: each title line as a comment.",
  input: { titles: z.boolean().optional() },
  output: { yaml: z.string(), documents: z.number().int() },
  annotations: READ,
  access: "read",
  run: ({ titles, context }, ctx) =>
    callDocuments(
      ctx,
      context,
      (resolved) => resolved.stub.documentTree(resolved.meta),
      ({ root, count }, resolved) => {
        const yaml = renderTree(root, titles ?? false);
        return reply(resolved.name, { yaml, documents: count }, yaml);
      },
    ),
});
