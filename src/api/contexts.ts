/**
 * Admin routes for contexts, under /api/contexts:
 *
 *   GET   /api/contexts[?removed=true]                  -> registered (and removed) contexts
 *   POST  /api/contexts  {name, description?, readOnly?, capacity?}  -> 201
 *   PATCH /api/contexts/:name  {description?, readOnly?, capacity?}
 *   POST  /api/contexts/:name/purge?confirm=<name>      -> wipes the data and forgets the name
 *
 * `capacity` is {total?, short?, mid?, long?}, whole numbers from 1 (null
 * or {}: none): the Registry keeps it with the context, and the context's
 * MemoryContext keeps a copy for its alarm (src/priority/capacity.ts). The
 * object is written first (setting it again is harmless), then the Registry:
 * a failed push errors with the Registry unchanged. A push happens only for
 * a name the Registry will accept, so a rejected call changes no object.
 *
 * A purge is the only way data is deleted wholesale: the name must be typed
 * twice; the Registry stops routing to the context, has the MemoryContext
 * wipe itself (marked purged: it refuses every call until registered again),
 * then forgets the name and audits the purge (Registry.purgeContext).
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app";
import { CONTEXT_NAME_PATTERN, INVALID_CONTEXT_NAME } from "../limits";
import { contextName, description } from "../mcp/contexts";
import { checkLimits, LIMIT_NAMES, MAX_LIMIT } from "../priority/capacity";
import { activeCache, contextCache } from "../auth/cache";
import { registryOf } from "../registry/Registry";
import type { Capacity } from "../registry/types";
import { fail } from "../errors";
import { failed, invalid, readBody, readFlag, requireAdmin } from "./http";
import { shownContext } from "./times";

const limit = z
  .number({ error: "must be a whole number" })
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(MAX_LIMIT, `must be at most ${MAX_LIMIT}`);
const capacity = z
  .strictObject(
    { total: limit.optional(), short: limit.optional(), mid: limit.optional(), long: limit.optional() },
    {
      error: (i) =>
        i.code === "unrecognized_keys"
          ? `unknown limit ${i.keys.join(", ")}; the limits are ${LIMIT_NAMES.join(", ")}`
          : 'must be an object such as {"total": 10000, "short": 2000}, or null',
    },
  )
  .nullable()
  // {} sets no limit: stored as null everywhere, as the object does.
  .transform((c) => (c !== null && Object.keys(c).length === 0 ? null : c));

/**
 * Pushes the context's capacity (as the Registry now holds it) to its object.
 * A value stored before limits were validated that is not valid limits counts as none.
 */
async function pushCapacity(env: Env, name: string, stored: Capacity | null) {
  const checked = stored === null ? null : checkLimits(stored);
  return env.MEMORY.getByName(name).setCapacity(checked?.ok ? checked.limits : null);
}

/** Pushes the read-only flag the Registry will hold to the context's object, whose evaluation never prunes a read-only context. */
async function pushReadOnly(env: Env, name: string, readOnly: boolean) {
  return env.MEMORY.getByName(name).setReadOnly(readOnly);
}

/** The Registry's row for `name`, registered or removed (undefined: never registered). */
async function findContextRow(env: Env, name: string) {
  const listed = await registryOf(env).listContexts(true);
  return listed.ok ? { ok: true as const, value: listed.value.find((x) => x.name === name) } : listed;
}

const CreateContext = z.object({ name: contextName, description: description.optional(), readOnly: z.boolean().optional(), capacity: capacity.optional() });
const UpdateContext = z
  .object({ description: description.optional(), readOnly: z.boolean().optional(), capacity: capacity.optional() })
  .refine((p) => Object.keys(p).length > 0, "give description, readOnly or capacity");

export const contexts = new Hono<AppEnv>();

contexts.get("/", requireAdmin, async (c) => {
  const removed = readFlag(c, "removed");
  if (!removed.ok) return removed.response;
  const listed = await registryOf(c.env).listContexts(removed.value);
  if (!listed.ok) return failed(c, listed);
  return c.json({ contexts: listed.value.map(shownContext) });
});

contexts.post("/", requireAdmin, async (c) => {
  const body = await readBody(c, CreateContext);
  if (!body.ok) return body.response;
  const { name: n, description: d, readOnly, capacity: cap } = body.value;
  const row = await findContextRow(c.env, n);
  if (!row.ok) return failed(c, row);
  if (row.value && row.value.removedAt === null) return failed(c, fail("Conflict", `Context ${JSON.stringify(n)} already exists.`));
  // A revived context keeps its capacity unless a new one is given (as the Registry does).
  const pushed = await pushCapacity(c.env, n, cap !== undefined ? cap : (row.value?.capacity ?? null));
  if (!pushed.ok) return failed(c, pushed);
  const flagged = await pushReadOnly(c.env, n, readOnly ?? row.value?.readOnly ?? false);
  if (!flagged.ok) return failed(c, flagged);
  const added = await registryOf(c.env).addContext(
    { name: n, ...(d !== undefined ? { description: d } : {}), ...(readOnly !== undefined ? { readOnly } : {}), ...(cap !== undefined ? { capacity: cap } : {}) },
    c.get("caller").id,
    "api",
  );
  if (!added.ok) return failed(c, added);
  return c.json(shownContext(added.value), 201);
});

contexts.patch("/:name", requireAdmin, async (c) => {
  const target = c.req.param("name");
  if (!CONTEXT_NAME_PATTERN.test(target)) return invalid(c, INVALID_CONTEXT_NAME);
  const body = await readBody(c, UpdateContext);
  if (!body.ok) return body.response;
  const { description: d, readOnly, capacity: cap } = body.value;
  const patch = { ...(d !== undefined ? { description: d } : {}), ...(readOnly !== undefined ? { readOnly } : {}), ...(cap !== undefined ? { capacity: cap } : {}) };
  if (cap !== undefined || readOnly !== undefined) {
    const row = await findContextRow(c.env, target);
    if (!row.ok) return failed(c, row);
    // An unregistered name is the Registry's NotFound below; its object is left alone.
    if (row.value && row.value.removedAt === null) {
      if (cap !== undefined) {
        const pushed = await pushCapacity(c.env, target, cap);
        if (!pushed.ok) return failed(c, pushed);
      }
      // With a capacity the object also learns the flag of a context made read-only elsewhere (add_context).
      const flagged = await pushReadOnly(c.env, target, readOnly ?? row.value.readOnly);
      if (!flagged.ok) return failed(c, flagged);
    }
  }
  const updated = await registryOf(c.env).updateContext(target, patch, c.get("caller").id);
  contextCache.forget(target);
  if (!updated.ok) return failed(c, updated);
  return c.json(shownContext(updated.value));
});

contexts.post("/:name/purge", requireAdmin, async (c) => {
  const target = c.req.param("name");
  if (c.req.query("confirm") !== target) {
    return invalid(c, `Purging deletes every entity, observation and relation in "${target}" for good. Type the name again: ?confirm=${target}`);
  }
  const purged = await registryOf(c.env).purgeContext(target, c.get("caller").id);
  // Calls cached in this isolate stop at once; other isolates' cached calls reach the object, which refuses them
  // once wiped (marked purged until registered again); a write before the wipe is wiped with the rest.
  contextCache.forget(target);
  activeCache.forgetContext(target);
  if (!purged.ok) return failed(c, purged);
  return c.json({ purged: target, wasRegistered: purged.value.wasRegistered });
});
