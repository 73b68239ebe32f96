import { z } from "zod";
import { currentContext } from "../contexts";
import { defineTool, failure, READ, reply } from "../tool";

export default defineTool({
  name: "get_active_context",
  toolset: "contexts",
  title: "Get Active Context",
  description: "Where calls naming no context go, and why: url (pinned), active (set_active_context) or default.",
  input: {},
  output: {
    name: z.string(),
    source: z.enum(["url", "active", "default"]),
    note: z.string().optional(),
  },
  annotations: READ,
  access: "read",
  managesContexts: true,
  run: async (_args, ctx) => {
    const current = await currentContext(ctx);
    if (!current.ok) return failure(current);
    return reply(current.value.name, { ...current.value });
  },
});
