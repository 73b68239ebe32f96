/**
 * GET /api/contexts/:name/entities[?sort=name|updated|priority][&type=<t>][&cursor=<c>][&limit=<n>]  (read grant)
 *   one keyset page of entities: {entities, next?, previous?, types?} (types on the first page only)
 * GET /api/contexts/:name/graph[?around=<entity>][&limit=<n>]  (read grant)
 *   the best-ranked entities (or one entity and its neighbours) and the relations among them: {entities, relations, total}
 *
 * The web page's Entities tab and graph read here (src/graph/browse.ts).
 * No tool answers these: read_graph walks in id order only, and search needs
 * words. Reading here is not an access.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app";
import { BROWSE_PAGE_MAX, ENTITY_SORTS, type EntitySort, GRAPH_VIEW_MAX } from "../graph/browse";
import { failed, invalid } from "./http";

const DEFAULT_PAGE = 50;
const DEFAULT_PICTURE = 50;

/** A `limit` parameter: absent gives `fallback`; otherwise an integer in 1..max, or the message saying so. */
function limitOf(text: string | undefined, fallback: number, max: number): number | string {
  if (text === undefined) return fallback;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 1 && n <= max ? n : `limit: an integer from 1 to ${max}.`;
}

export async function browseEntities(c: Context<AppEnv>) {
  const sort = c.req.query("sort") ?? "name";
  if (!ENTITY_SORTS.includes(sort as EntitySort)) return invalid(c, `sort: one of ${ENTITY_SORTS.join(", ")}.`);
  const limit = limitOf(c.req.query("limit"), DEFAULT_PAGE, BROWSE_PAGE_MAX);
  if (typeof limit === "string") return invalid(c, limit);
  const type = c.req.query("type");
  const cursor = c.req.query("cursor");
  const read = await c.env.MEMORY.getByName(c.req.param("name") ?? "").browseEntities({
    sort: sort as EntitySort,
    limit,
    ...(type === undefined ? {} : { type }),
    ...(cursor === undefined || cursor === "" ? {} : { cursor }),
  });
  return read.ok ? c.json(read.value) : failed(c, read);
}

export async function graphPicture(c: Context<AppEnv>) {
  const limit = limitOf(c.req.query("limit"), DEFAULT_PICTURE, GRAPH_VIEW_MAX);
  if (typeof limit === "string") return invalid(c, limit);
  const around = c.req.query("around");
  const read = await c.env.MEMORY.getByName(c.req.param("name") ?? "").graphView({ limit, ...(around === undefined ? {} : { around }) });
  return read.ok ? c.json(read.value) : failed(c, read);
}
