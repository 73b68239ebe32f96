import { z } from "zod";
import { LIMITS } from "../../limits";
import { callContext, defineTool, reply, SETS } from "../tool";

export default defineTool({
  name: "mark_important",
  toolset: "priority",
  title: "Mark Important",
  description:
    "Mark items (entity:<name>, file:<path>, doc:<id>) important or not: they rank higher in search_nodes, stay long-term, are never pruned. A missing item rejects the call.",
  input: {
    items: z
      .array(
        z
          .string()
          .min(1, "an item key must not be empty")
          .max(LIMITS.filePath + 5, `an item key must be at most ${LIMITS.filePath + 5} characters`),
      )
      .min(1, "items must name at least one item")
      .max(LIMITS.batchItems, `at most ${LIMITS.batchItems} items per call`),
    important: z.boolean(),
  },
  output: {
    important: z.boolean(),
    changed: z.array(z.string()),
    unchanged: z.array(z.string()),
  },
  annotations: SETS,
  access: "write",
  run: ({ items, important, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.markImportant(items, important, resolved.meta),
      (r, resolved) => {
        const verb = important ? "Marked important" : "Removed the importance mark from";
        const lines = [r.changed.length > 0 ? `${verb}: ${r.changed.join(", ")}.` : "Nothing changed."];
        if (r.unchanged.length > 0) lines.push(`Already ${important ? "marked" : "unmarked"}: ${r.unchanged.join(", ")}.`);
        return reply(resolved.name, { important, ...r }, lines.join(" "));
      },
    ),
});
