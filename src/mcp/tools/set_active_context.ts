import { z } from "zod";
import { noGrant } from "../../auth/access";
import { activeCache } from "../../auth/cache";
import { callerKey } from "../../auth/caller";
import { roleFor } from "../../auth/grants";
import { fail } from "../../errors";
import { registryOf } from "../../registry/Registry";
import { settings } from "../../settings";
import { ContextOut, contextName, contextOut } from "../contexts";
import { defineTool, failure, reply, SETS } from "../tool";

export default defineTool({
  name: "set_active_context",
  toolset: "contexts",
  title: "Set Active Context",
  description: "Set your active context, where calls on /mcp naming none go. It persists.",
  input: { name: contextName },
  output: { context: ContextOut, note: z.string().optional() },
  annotations: SETS,
  access: "read",
  managesContexts: true,
  run: async ({ name }, ctx) => {
    if (roleFor(ctx.caller.grants, name) === undefined)
      return failure(fail("Forbidden", noGrant(name, ctx.caller.grants, "list_contexts shows the contexts you can use.")));
    const set = await registryOf(ctx.env).setActiveContext(callerKey(ctx.caller), name, ctx.caller.id);
    if (!set.ok) return failure(set);
    activeCache.set(callerKey(ctx.caller), { name }, settings(ctx.env).TOKEN_CACHE_SECONDS * 1000); // at once in this isolate
    const note =
      ctx.pinned !== undefined && ctx.pinned !== name
        ? `This endpoint is pinned to "${ctx.pinned}", so calls here still go there; the active context applies on /mcp.`
        : undefined;
    const context = contextOut(set.value, ctx);
    const text = `Active context is now "${name}".${note ? ` ${note}` : ""}`;
    return reply(name, { context, ...(note ? { note } : {}) }, text);
  },
});
