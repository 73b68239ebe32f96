/**
 * Authorization for one use of one context, the same for MCP tools and the
 * REST routes that touch a context's data:
 *
 * 1. the caller needs a grant matching the name (else Forbidden, before
 *    anything reveals whether the context exists);
 * 2. the context must be registered, or be registrable now: the default
 *    always is, others only by a write whose grant allows creating them
 *    (src/registry/). A read of an unknown name is NotFound and registers
 *    nothing, so a typo does not leave a context behind;
 * 3. a write needs a write or admin grant and a context that is not read-only.
 *
 * Step 2 is a Registry round trip. For a read, a registration seen in the
 * last TOKEN_CACHE_SECONDS in this isolate answers instead (./cache.ts):
 * a removal elsewhere reaches reads within that bound. A write always asks
 * the Registry, so read-only flags, removals and purges bind writes at once.
 */
import { fail, ok, type Outcome } from "../errors";
import { registryOf } from "../registry/Registry";
import type { ContextInfo } from "../registry/types";
import { settings } from "../settings";
import { contextCache } from "./cache";
import type { Caller } from "./caller";
import { mayCreate, roleFor, type Role } from "./grants";

export type Need = "read" | "write";

export const noGrant = (name: string) => `You have no grant for context ${JSON.stringify(name)}. list_contexts shows the contexts you can use.`;

export async function openContext(env: Env, caller: Caller, name: string, need: Need): Promise<Outcome<ContextInfo & { role: Role }>> {
  const role = roleFor(caller.grants, name);
  if (!role) return fail("Forbidden", noGrant(name));
  const cached = need === "read" ? contextCache.get(name) : undefined;
  if (cached) return ok({ ...cached, role });
  const used = await registryOf(env).useContext(name, need === "write" && mayCreate(caller.grants, name), caller.id);
  if (!used.ok) return used;
  const { created: _, ...context } = used.value;
  contextCache.set(name, context, settings(env).TOKEN_CACHE_SECONDS * 1000);
  if (need === "write") {
    if (role === "read") {
      return fail("Forbidden", `Your grant on context ${JSON.stringify(name)} is read-only, and this call writes. Reads work.`);
    }
    if (context.readOnly) {
      return fail("Forbidden", `Context ${JSON.stringify(name)} is read-only, and this call writes. Reads work.`);
    }
  }
  return ok({ ...context, role });
}
