import { z } from "zod";
import { roleFor } from "../../auth/grants";
import { fail } from "../../errors";
import { activeCache, contextCache } from "../../auth/cache";
import { registryOf } from "../../registry/Registry";
import { contextName } from "../contexts";
import { defineTool, DESTRUCTIVE, failure, reply } from "../tool";

export default defineTool({
  name: "remove_context",
  toolset: "contexts",
  title: "Remove Context",
  description: 'Unregister a context (admin grant); its data is kept and add_context revives it. Not "default".',
  input: { name: contextName },
  output: { name: z.string(), removed: z.boolean(), dataKept: z.boolean() },
  annotations: DESTRUCTIVE,
  access: "write",
  managesContexts: true,
  run: async ({ name }, ctx) => {
    if (roleFor(ctx.caller.grants, name) !== "admin") {
      return failure(fail("Forbidden", `Removing context ${JSON.stringify(name)} needs an admin grant on it.`));
    }
    const removed = await registryOf(ctx.env).removeContext(name, ctx.caller.id, "tool:remove_context");
    if (!removed.ok) return failure(removed);
    // This isolate stops serving reads at once, others within TOKEN_CACHE_SECONDS; writes stop everywhere (the object refuses them).
    contextCache.forget(name);
    activeCache.forgetContext(name);
    const text = `Removed context "${name}". Its data is kept until an administrator purges it.`;
    return reply(name, { name, removed: true, dataKept: true }, text);
  },
});
