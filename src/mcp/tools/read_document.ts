import { z } from "zod";
import { ROOT_ID } from "../../documents/links";
import { callDocuments, documentId } from "../documents";
import { RelatedOut, replyWithRelated } from "../related";
import { defineTool, READ } from "../tool";

export default defineTool({
  name: "read_document",
  toolset: "documents",
  title: "Read Document",
  description: "Read a working-memory document (markdown). Its [[id]] links are its children; related items follow.",
  input: { id: documentId },
  output: { id: z.string(), content: z.string(), related: RelatedOut },
  annotations: READ,
  access: "read",
  run: ({ id, context }, ctx) =>
    callDocuments(
      ctx,
      context,
      (resolved) => resolved.stub.readDocument(id ?? ROOT_ID, resolved.meta),
      (doc, resolved) => replyWithRelated(resolved.name, { ...doc }, doc.content, doc.related),
    ),
});
