import { z } from "zod";
import { mayCreate, yourGrants } from "../../auth/grants";
import { fail } from "../../errors";
import { registryOf } from "../../registry/Registry";
import { ContextOut, contextName, contextOut, description } from "../contexts";
import { ADDITIVE, defineTool, failure, reply } from "../tool";

export default defineTool({
  name: "add_context",
  toolset: "contexts",
  title: "Add Context",
  description: "Create a context (admin or +create grant); read_only refuses writes. A removed name is revived with its data.",
  input: {
    name: contextName,
    description: description.optional(),
    read_only: z.boolean().optional(),
  },
  output: { context: ContextOut, revived: z.boolean() },
  annotations: ADDITIVE,
  access: "write",
  managesContexts: true,
  run: async ({ name, description, read_only }, ctx) => {
    if (!mayCreate(ctx.caller.grants, name)) {
      const such = `such as ${name}=write+create (${yourGrants(ctx.caller.grants)})`;
      return failure(fail("Forbidden", `Creating context ${JSON.stringify(name)} needs an admin grant or a +create grant matching it, ${such}.`));
    }
    const added = await registryOf(ctx.env).addContext(
      { name, ...(description !== undefined ? { description } : {}), ...(read_only !== undefined ? { readOnly: read_only } : {}) },
      ctx.caller.id,
      "tool:add_context",
    );
    if (!added.ok) return failure(added);
    const { revived, ...info } = added.value;
    const text = revived
      ? `Context "${name}" is registered again, with the data it held when it was removed.`
      : `Created context "${name}"${info.readOnly ? " (read-only)" : ""}.`;
    return reply(name, { context: contextOut(info, ctx), revived }, text);
  },
});
