/**
 * Deployment numbers for the administrator, under /api/admin:
 *
 *   GET /api/admin/registry-calls  -> {calls}
 *
 * `calls` is how many calls the deployment's Registry object has served since
 * it started (Registry.callCount; reading it is not counted). `npm run bench`
 * reads it before and after its timed tool calls to print "Registry calls per
 * 1,000 tool calls": a warm tool call should make none (docs/operations.md,
 * "Scale").
 */
import { Hono } from "hono";
import type { AppEnv } from "../app";
import { registryOf } from "../registry/Registry";
import { requireAdmin } from "./http";

export const admin = new Hono<AppEnv>();

admin.get("/registry-calls", requireAdmin, async (c) => c.json({ calls: await registryOf(c.env).callCount() }));
