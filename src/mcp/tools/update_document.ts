import { z } from "zod";
import { ROOT_ID } from "../../documents/links";
import { callDocuments, documentContent, documentId } from "../documents";
import { defineTool, reply } from "../tool";

// Enough names for the agent to see what happened; structuredContent has them all.
const SHOWN = 50;
const names = (ids: readonly string[]) => ids.slice(0, SHOWN).join(", ") + (ids.length > SHOWN ? ` (and ${ids.length - SHOWN} more)` : "");

export default defineTool({
  name: "update_document",
  toolset: "documents",
  title: "Update Document",
  description:
    "Replace a working-memory document's markdown (default: root). A new [[id]] link (id: letters, digits, _ -) creates that child; " +
    "removing a link deletes the child and its subtree. Link only the document's own children: never itself, a sibling, " +
    "an ancestor or another document's child (rejected, nothing written).",
  input: { id: documentId, content: documentContent },
  output: {
    created: z.array(z.string()).describe("Child documents created by new links"),
    removed: z.array(z.string()).describe("Documents deleted because their link was removed, with their subtrees"),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: ({ id, content, context }, ctx) =>
    callDocuments(
      ctx,
      context,
      (c) => c.stub.updateDocument(id ?? ROOT_ID, content, c.meta),
      (r, c) => {
        const lines = ["Succeeded"];
        if (r.created.length > 0) lines.push(`Created: ${names(r.created)}`);
        if (r.removed.length > 0) lines.push(`Removed: ${names(r.removed)}`);
        return reply(c.name, { created: r.created, removed: r.removed }, lines.join("\n"));
      },
    ),
});
