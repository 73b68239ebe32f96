/**
 * GET /api/contexts/:name/stats[?entity=<name>...]  (read grant)
 *
 * Numbers people want to see and no tool answers yet: the context's
 * settings and the caller's role on it, counts across every domain, the
 * database's size, its capacity use and archive (`priority`: the limits as the
 * context's object holds them, use per limit, the last evaluation), the search
 * mode and embedding lag (`search`: src/search/semantic/queue.ts), and, for each `entity` asked (repeat the parameter, at
 * most STATS_MAX_ENTITIES), its access statistics. The web page reads its
 * overview and an entity's statistics here. Reading is not an access: the
 * numbers do not move because someone looked at them.
 */
import type { Context } from "hono";
import { openContext } from "../auth/access";
import type { AppEnv } from "../app";
import { LIMITS } from "../limits";
import { failed, invalid } from "./http";

const STATS_MAX_ENTITIES = 50;

export async function stats(c: Context<AppEnv>) {
  const name = c.req.param("name") ?? "";
  const entities = c.req.queries("entity") ?? [];
  if (entities.length > STATS_MAX_ENTITIES) return invalid(c, `entity: at most ${STATS_MAX_ENTITIES} per request.`);
  if (entities.some((e) => e.length === 0 || e.length > LIMITS.entityName)) {
    return invalid(c, `entity: each name must be 1-${LIMITS.entityName} characters.`);
  }
  const opened = await openContext(c.env, c.get("caller"), name, "read");
  if (!opened.ok) return failed(c, opened);
  const read = await c.env.MEMORY.getByName(name).contextStats(entities);
  if (!read.ok) return failed(c, read);
  const { description, readOnly, capacity, role } = opened.value;
  const { counts, priority, search, entities: found } = read.value;
  const body: Record<string, unknown> = { context: { name, description, readOnly, capacity, role }, counts, priority, search };
  if (found) {
    const known = new Set(found.map((e) => e.name));
    body.entities = found;
    const missing = [...new Set(entities)].filter((e) => !known.has(e));
    if (missing.length > 0) body.notFound = missing;
  }
  return c.json(body);
}
