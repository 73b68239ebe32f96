import { z } from "zod";
import { roleFor, ROLES } from "../../auth/grants";
import { registryOf } from "../../registry/Registry";
import { ContextOut, contextOut, currentContext } from "../contexts";
import { defineTool, failure, READ, reply } from "../tool";

export default defineTool({
  name: "list_contexts",
  toolset: "contexts",
  title: "List Contexts",
  description: "Contexts you can use with your role, where calls naming none go (current), and your grants.",
  input: {},
  output: {
    contexts: z.array(ContextOut),
    current: z.string(),
    grants: z.array(z.object({ context: z.string(), role: z.enum(ROLES), create: z.boolean().optional() })),
  },
  annotations: READ,
  access: "read",
  managesContexts: true,
  run: async (_args, ctx) => {
    const [all, current] = await Promise.all([registryOf(ctx.env).listContexts(false), currentContext(ctx)]);
    if (!all.ok) return failure(all);
    if (!current.ok) return failure(current);
    const contexts = all.value.filter((c) => roleFor(ctx.caller.grants, c.name) !== undefined).map((c) => contextOut(c, ctx));
    const grants = ctx.caller.grants.map((g) => ({ context: g.context, role: g.role, ...(g.create ? { create: true } : {}) }));
    return reply(current.value.name, { contexts, current: current.value.name, grants });
  },
});
