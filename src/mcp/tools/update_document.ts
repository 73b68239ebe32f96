import { z } from "zod";
import { ROOT_ID } from "../../documents/links";
import { documentContent, documentId } from "../documents";
import { callContext, defineTool, DESTRUCTIVE, reply } from "../tool";

// Enough names for the agent to see what happened; structuredContent has them all.
const SHOWN = 50;
const names = (ids: readonly string[]) => ids.slice(0, SHOWN).join(", ") + (ids.length > SHOWN ? ` (and ${ids.length - SHOWN} more)` : "");

export default defineTool({
  name: "update_document",
  toolset: "documents",
  title: "Update Document",
  description: "Replace a working-memory document. A new [[id]] link creates that child, a removed one deletes its subtree; link only its own children.",
  input: { id: documentId, content: documentContent },
  output: {
    created: z.array(z.string()),
    removed: z.array(z.string()),
    unchanged: z.boolean().optional(),
  },
  annotations: DESTRUCTIVE,
  access: "write",
  // Its failures are tool errors like any write's (`Error (NotFound): ...`); only read_document keeps the bare not-found answer.
  run: ({ id, content, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.updateDocument(id ?? ROOT_ID, content, resolved.meta),
      (r, resolved) => {
        const target = id ?? ROOT_ID;
        if (r.unchanged) return reply(resolved.name, { created: [], removed: [], unchanged: true }, `${target} already holds this content; nothing changed.`);
        const lines = ["Succeeded"];
        if (r.created.length > 0) lines.push(`Created: ${names(r.created)}`);
        if (r.removed.length > 0) lines.push(`Removed: ${names(r.removed)}`);
        return reply(resolved.name, { created: r.created, removed: r.removed }, lines.join("\n"));
      },
    ),
});
