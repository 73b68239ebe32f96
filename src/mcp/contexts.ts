/**
 * What the context tools (toolset "contexts") share: the name schema, the
 * output shape of a context, and where calls without a `context` argument go.
 * These tools manage the Registry and authorize against the caller's grants
 * themselves; they never act inside a memory context.
 */
import { z } from "zod";
import { activeContextOf } from "../auth/access";
import { roleFor, ROLES } from "../auth/grants";
import { ok, type Outcome } from "../errors";
import { CONTEXT_NAME_PATTERN, CONTEXT_NAME_RULE, LIMITS } from "../limits";
import type { ContextInfo } from "../registry/types";
import { shownAsSent } from "./schemas";
import type { ToolContext } from "./tool";

export const contextName = z.string().regex(CONTEXT_NAME_PATTERN, `name ${CONTEXT_NAME_RULE}`);

/**
 * A context's description, as add_context and the contexts API (src/api/contexts.ts) take it. It is
 * shown beside the name (list_contexts, the web page), one line, so it follows the name rule of
 * src/text.ts: no control characters (NUL, line breaks), bidirectional controls or invisible characters.
 */
export const description = z
  .string()
  .max(LIMITS.contextDescription, `description must be at most ${LIMITS.contextDescription} characters`)
  .superRefine(shownAsSent("description"));

export const ContextOut = z.object({
  name: z.string(),
  description: z.string(),
  readOnly: z.boolean(),
  role: z.enum(ROLES),
});
export type ContextOut = z.infer<typeof ContextOut>;

export const contextOut = (info: ContextInfo, ctx: ToolContext): ContextOut => ({
  name: info.name,
  description: info.description,
  readOnly: info.readOnly,
  role: roleFor(ctx.caller.grants, info.name) ?? "read",
});

/** Where this connection's calls go when they name no context, and why. */
export interface CurrentContext {
  name: string;
  source: "url" | "active" | "default";
  note?: string;
}

export async function currentContext(ctx: ToolContext): Promise<Outcome<CurrentContext>> {
  if (ctx.pinned !== undefined) return ok({ name: ctx.pinned, source: "url" });
  const active = await activeContextOf(ctx.env, ctx.caller);
  if (!active.ok) return active;
  const { name, fellBackFrom } = active.value;
  if (fellBackFrom !== undefined) {
    return ok({ name, source: "default", note: `Your active context "${fellBackFrom}" was removed; calls use "${name}".` });
  }
  return ok({ name, source: name === "default" ? "default" : "active" });
}
