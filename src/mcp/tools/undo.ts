import { z } from "zod";
import { callContext, defineTool, DESTRUCTIVE_REPEATABLE, failure, reply } from "../tool";
import { intIn } from "../schemas";

export default defineTool({
  name: "undo",
  toolset: "history",
  title: "Undo",
  description: "Undo your last change (or last count, or #change and later changes to its items); refused if others changed them since.",
  input: {
    change: intIn("change", 1).optional().describe("#seq from memory_history"),
    count: intIn("count", 1, 50).optional(),
  },
  output: {
    change: z.number(),
    undone: z.array(z.object({ seq: z.number(), caller: z.string(), tool: z.string(), summary: z.string() })),
  },
  annotations: DESTRUCTIVE_REPEATABLE,
  access: "write",
  run: async ({ change, count, context }, ctx) => {
    if (change !== undefined && count !== undefined) {
      return failure({ ok: false, kind: "Invalid", message: "give either change or count, not both." });
    }
    return callContext(
      ctx,
      context,
      (resolved) => resolved.stub.undo(change !== undefined ? { change } : { count: count ?? 1 }, resolved.meta),
      (r, resolved) => {
        const what = r.undone.map((u) => `#${u.seq} (${u.tool}: ${u.summary})`).join(", ");
        return reply(resolved.name, { ...r }, `Undid ${what} as change #${r.change}. To take this back: undo{change: ${r.change}}.`);
      },
    );
  },
});
