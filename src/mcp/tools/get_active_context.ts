import { z } from "zod";
import { currentContext } from "../contexts";
import { defineTool, failure, reply } from "../tool";

export default defineTool({
  name: "get_active_context",
  toolset: "contexts",
  title: "Get Active Context",
  description:
    'Show which memory context calls use when they name none: source "url" (this endpoint is pinned), "active" (set with set_active_context) or "default".',
  input: {},
  output: {
    name: z.string(),
    source: z.enum(["url", "active", "default"]),
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  managesContexts: true,
  run: async (_args, ctx) => {
    const current = await currentContext(ctx);
    if (!current.ok) return failure(current);
    return reply(current.value.name, { ...current.value });
  },
});
