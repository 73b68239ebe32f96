/**
 * Deployment numbers for the administrator, under /api/admin:
 *
 *   GET /api/admin/registry-calls  -> {calls, since}
 *
 * `calls` is how many calls the deployment's Registry object has served since
 * it started at `since` (Registry.callStats; reading it is not counted). The
 * count lives in the object's memory: it starts again from 0 when the
 * platform evicts the object while idle, and `since` changes. `npm run bench`
 * reads it before and after its timed tool calls to print "Registry calls per
 * 1,000 tool calls": a warm tool call should make none (docs/operations.md,
 * "Scale").
 */
import { Hono } from "hono";
import type { AppEnv } from "../app";
import { registryOf } from "../registry/Registry";
import { requireAdmin } from "./http";

export const admin = new Hono<AppEnv>();

admin.get("/registry-calls", requireAdmin, async (c) => {
  const { calls, since } = await registryOf(c.env).callStats();
  return c.json({ calls, since: new Date(since).toISOString() });
});
