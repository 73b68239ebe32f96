/**
 * POST /api/contexts/:name/restore?at=<ISO time | ms>  (or ?bookmark=<bookmark>)
 *
 * Durable Object point-in-time recovery for the administrator: the context's
 * whole database (graph and history) goes back to how it was at `at`, within
 * the platform's 30 days. The object is restarted to apply it. The answer
 * carries `undoBookmark`, the state just before the restore, so a restore can
 * be taken back with `?bookmark=<undoBookmark>`.
 *
 * Local workerd (wrangler dev, tests) has no PITR: the answer is 501.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app";
import { DAY_MS } from "../history";
import { invalid as bad } from "./http";
import type { PitrTarget } from "../context/pitr";

/** How far back the platform keeps bookmarks. */
const PITR_DAYS = 30;
const BOOKMARK = /^[0-9a-f-]{1,200}$/i;

/** `at` as ms since the epoch: digits are ms, anything else an ISO 8601 time. */
export function parseAt(text: string): number | undefined {
  const ms = /^\d{1,16}$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The route handler; mounted behind requireAdmin in routes.ts. */
export async function recoverToPoint(c: Context<AppEnv>) {
  const atText = c.req.query("at");
  const bookmark = c.req.query("bookmark");
  if ((atText === undefined) === (bookmark === undefined)) {
    return bad(c, "Give exactly one of at (an ISO 8601 time or ms since the epoch) or bookmark.");
  }
  let target: PitrTarget;
  if (bookmark !== undefined) {
    if (!BOOKMARK.test(bookmark)) return bad(c, "bookmark is not a Durable Object bookmark (hex digits and dashes).");
    target = { bookmark };
  } else {
    const at = parseAt(atText ?? "");
    if (at === undefined) return bad(c, "at must be an ISO 8601 time (2026-11-22T10:00:00Z) or ms since the epoch.");
    const now = Date.now();
    if (at > now) return bad(c, "at is in the future.");
    if (at < now - PITR_DAYS * DAY_MS) return bad(c, `at is more than ${PITR_DAYS} days ago; Durable Objects keep ${PITR_DAYS} days.`);
    target = { at };
  }

  const stub = c.env.MEMORY.getByName(c.req.param("name") as string);
  const plan = await stub.preparePitr(target);
  if (!plan.supported) return c.json({ error: "not_implemented", message: plan.message }, 501);
  if (!plan.ok) return bad(c, plan.message);
  // The reset makes this call fail by design; the restore happens when the object starts again.
  await stub.restart().catch(() => undefined);
  return c.json({
    restored: true,
    bookmark: plan.bookmark,
    undoBookmark: plan.undoBookmark,
    message: `The context now starts from that point, its history included. To take this back: POST this endpoint with ?bookmark=${plan.undoBookmark}.`,
  });
}
