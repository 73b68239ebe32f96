/**
 * The admin audit log, newest first:
 *
 *   GET /api/audit[?limit=100&before=<id>]  -> {entries, nextBefore?}
 */
import { Hono } from "hono";
import type { AppEnv } from "../app";
import { registryOf } from "../registry/Registry";
import { failed, invalid, requireAdmin } from "./http";
import { shownEntry } from "./times";

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

export const audit = new Hono<AppEnv>();

audit.get("/", requireAdmin, async (c) => {
  const limit = Number(c.req.query("limit") ?? DEFAULT_PAGE);
  const beforeText = c.req.query("before");
  const before = beforeText === undefined ? undefined : Number(beforeText);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE) return invalid(c, `limit must be an integer from 1 to ${MAX_PAGE}.`);
  if (before !== undefined && (!Number.isSafeInteger(before) || before < 1)) return invalid(c, "before must be an entry id.");
  const page = await registryOf(c.env).auditLog(limit, before);
  if (!page.ok) return failed(c, page);
  const entries = page.value.map((e) => ({ ...shownEntry(e), detail: e.detail === null ? null : (JSON.parse(e.detail) as unknown) }));
  const last = entries[entries.length - 1];
  return c.json({ entries, ...(entries.length === limit && last ? { nextBefore: last.id } : {}) });
});
