/**
 * What the REST routes share: admin-only and per-context guards, JSON body
 * validation and the mapping of domain failures to HTTP statuses.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { openContext, type Need } from "../auth/access";
import { isAdmin } from "../auth/caller";
import type { DomainFailure, ErrorKind } from "../errors";
import type { AppEnv } from "../app";
import { CONTEXT_NAME_PATTERN, INVALID_CONTEXT_NAME } from "../limits";
import { describeMalformed, malformedIn } from "../text";

const STATUS: Record<ErrorKind, ContentfulStatusCode> = {
  Invalid: 400,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  TooLarge: 413,
};

export const failed = (c: Context<AppEnv>, f: Pick<DomainFailure, "kind" | "message">) => c.json({ error: f.kind, message: f.message }, STATUS[f.kind]);

export const invalid = (c: Context<AppEnv>, message: string) => c.json({ error: "Invalid", message }, 400);

/** Only the administrator (ADMIN_TOKEN, or open local mode) passes. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!isAdmin(c.get("caller"))) {
    return c.json({ error: "Forbidden", message: "This route needs the administrator's token (ADMIN_TOKEN)." }, 403);
  }
  await next();
};

/** The `:name` context must be usable by the caller for `need` (same rules as the MCP tools). */
export const requireContext =
  (need: Need): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    const name = c.req.param("name") ?? "";
    if (!CONTEXT_NAME_PATTERN.test(name)) return invalid(c, INVALID_CONTEXT_NAME);
    const opened = await openContext(c.env, c.get("caller"), name, need);
    if (!opened.ok) return failed(c, opened);
    await next();
  };

/** The request's JSON body, well-formed (src/text.ts) and checked against `schema`, or the 400 response to send. */
export async function readBody<T extends z.ZodType>(c: Context<AppEnv>, schema: T): Promise<{ ok: true; value: z.infer<T> } | { ok: false; response: Response }> {
  let json: unknown;
  try {
    json = await c.req.json();
  } catch {
    return { ok: false, response: invalid(c, "The body must be a JSON object.") };
  }
  const malformed = malformedIn(json);
  if (malformed) return { ok: false, response: invalid(c, describeMalformed(malformed)) };
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");
    return { ok: false, response: invalid(c, detail) };
  }
  return { ok: true, value: parsed.data };
}
