import { z } from "zod";
import { callContext, defineTool, failure, reply } from "../tool";

export default defineTool({
  name: "undo",
  toolset: "history",
  title: "Undo",
  description:
    "Undo your last change in this memory context (or your last `count`, or change #`change` with the later changes to the same items). " +
    "Recorded as a change, so it can be undone too. Fails, writing nothing, if someone else changed those items since.",
  input: {
    change: z.number().int().min(1).optional().describe("The #seq to undo (see memory_history); default: your last change"),
    count: z.number().int().min(1).max(50).optional().describe("How many of your last changes to undo (default 1)"),
  },
  output: {
    change: z.number().describe("The #seq recording this undo"),
    undone: z.array(z.object({ seq: z.number(), caller: z.string(), tool: z.string(), summary: z.string() })),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: async ({ change, count, context }, ctx) => {
    if (change !== undefined && count !== undefined) {
      return failure({ ok: false, kind: "Invalid", message: "give either change or count, not both." });
    }
    return callContext(
      ctx,
      context,
      (c) => c.stub.undo(change !== undefined ? { change } : { count: count ?? 1 }, c.meta),
      (r, c) => {
        const what = r.undone.map((u) => `#${u.seq} (${u.tool}: ${u.summary})`).join(", ");
        return reply(c.name, { ...r }, `Undid ${what} as change #${r.change}. To take this back: undo{change: ${r.change}}.`);
      },
    );
  },
});
