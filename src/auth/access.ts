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
 * Step 2 is a Registry round trip only the first time in
 * TOKEN_CACHE_SECONDS: a registration seen since in this isolate answers
 * instead (./cache.ts), for reads and writes alike, so a warm tool call
 * never reaches the Registry. A removal elsewhere reaches reads within that
 * bound. Writes need no fresher answer: the context's own object refuses a
 * write into a read-only, removed or purged context itself
 * (src/context/registration.ts), at once, whatever this cache holds. A
 * write's Registry lookup also pushes the registration to the object
 * (src/registry/Registry.ts), which heals one left refusing; a write into a
 * context cached as read-only looks it up again, so lifting the flag
 * elsewhere binds at once too.
 */
import { fail, ok, type Outcome } from "../errors";
import { registryOf } from "../registry/Registry";
import type { ActiveContext, ContextInfo } from "../registry/types";
import { settings } from "../settings";
import { activeCache, contextCache } from "./cache";
import { callerKey, type Caller } from "./caller";
import { mayCreate, roleFor, yourGrants, type Grant, type Role } from "./grants";

export type Need = "read" | "write";

/** How a tool call picks another context: what follows a refusal of one the caller holds no grant for. */
const PICK_ANOTHER =
  "Name a context your grants cover in a tool's `context` argument, or make it your active context with set_active_context; list_contexts shows them.";

/**
 * The refusal of a context no grant of the caller matches: the caller's grants
 * (a few, as users type them), then `then`, how to choose another (by
 * default a tool call's ways). The context used is never changed for the caller.
 */
export const noGrant = (name: string, grants: readonly Grant[], then = PICK_ANOTHER) =>
  `You have no grant for context ${JSON.stringify(name)} (${yourGrants(grants)}). ${then}`;

/**
 * The caller's active context: the Registry's answer, kept with the token for
 * TOKEN_CACHE_SECONDS in this isolate (set_active_context changes it here at
 * once, elsewhere within the bound).
 */
export async function activeContextOf(env: Env, caller: Caller): Promise<Outcome<ActiveContext>> {
  const key = callerKey(caller);
  const cached = activeCache.get(key);
  if (cached) return ok(cached);
  const active = await registryOf(env).activeContext(key);
  if (active.ok) activeCache.set(key, active.value, settings(env).TOKEN_CACHE_SECONDS * 1000);
  return active;
}

/**
 * The context a call may use, with the caller's role on it; `created` when
 * this very call registered it (a write to a new name), and `revived` too
 * when that name had been removed (its data is back).
 */
export async function openContext(
  env: Env,
  caller: Caller,
  name: string,
  need: Need,
): Promise<Outcome<ContextInfo & { role: Role; created: boolean; revived: boolean }>> {
  const role = roleFor(caller.grants, name);
  if (!role) return fail("Forbidden", noGrant(name, caller.grants));
  // Refused before the Registry is asked: a first write may register (or revive) the context.
  if (need === "write" && role === "read") {
    return fail("Forbidden", `Your grant on context ${JSON.stringify(name)} is read-only, and this call writes. Reads work.`);
  }
  const cached = contextCache.get(name);
  let context: ContextInfo;
  let created = false;
  let revived = false;
  // A write into a context cached as read-only asks again: the flag may have been lifted elsewhere.
  if (cached && !(need === "write" && cached.readOnly)) context = cached;
  else {
    const write = need === "write";
    const used = await registryOf(env).useContext(name, write && mayCreate(caller.grants, name), caller.id, write);
    if (!used.ok) return used;
    const { created: registered, revived: back, ...fresh } = used.value;
    context = fresh;
    created = registered;
    revived = back;
    contextCache.set(name, context, settings(env).TOKEN_CACHE_SECONDS * 1000);
  }
  if (need === "write" && context.readOnly) {
    return fail("Forbidden", `Context ${JSON.stringify(name)} is read-only, and this call writes. Reads work.`);
  }
  return ok({ ...context, role, created, revived });
}
