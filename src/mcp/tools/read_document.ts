import { z } from "zod";
import { ROOT_ID } from "../../documents/links";
import { callDocuments, documentId } from "../documents";
import { defineTool, reply } from "../tool";

export default defineTool({
  name: "read_document",
  toolset: "documents",
  title: "Read Document",
  description: "Read a working-memory document's markdown (default: root). Its [[id]] links are its child documents.",
  input: { id: documentId },
  output: { id: z.string(), content: z.string() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: ({ id, context }, ctx) =>
    callDocuments(
      ctx,
      context,
      (c) => c.stub.readDocument(id ?? ROOT_ID, c.meta),
      (doc, c) => reply(c.name, doc, doc.content),
    ),
});
