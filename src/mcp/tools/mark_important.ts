import { z } from "zod";
import { LIMITS } from "../../limits";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "mark_important",
  toolset: "priority",
  title: "Mark Important",
  description:
    "Mark memory items important (or not). Marked items rank higher in search_nodes, go to long-term memory and are never pruned. " +
    "Items are keys: entity:<name>, file:<path>, doc:<id>. A malformed key or a missing item rejects the whole call, naming them. Undo reverts it.",
  input: {
    items: z
      .array(
        z
          .string()
          .min(1, "an item key must not be empty")
          .max(LIMITS.filePath + 5, `an item key must be at most ${LIMITS.filePath + 5} characters`),
      )
      .min(1, "items must name at least one item")
      .max(LIMITS.batchItems, `at most ${LIMITS.batchItems} items per call`)
      .describe("Item keys: entity:<name>, file:<path> or doc:<id>"),
    important: z.boolean().describe("true marks the items important, false removes the mark"),
  },
  output: {
    important: z.boolean(),
    changed: z.array(z.string()).describe("Items whose mark changed"),
    unchanged: z.array(z.string()).describe("Items that already had this mark"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: ({ items, important, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.markImportant(items, important, c.meta),
      (r, c) => {
        const verb = important ? "Marked important" : "Removed the importance mark from";
        const lines = [r.changed.length > 0 ? `${verb}: ${r.changed.join(", ")}.` : "Nothing changed."];
        if (r.unchanged.length > 0) lines.push(`Already ${important ? "marked" : "unmarked"}: ${r.unchanged.join(", ")}.`);
        return reply(c.name, { important, ...r }, lines.join(" "));
      },
    ),
});
