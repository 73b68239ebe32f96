/**
 * What the REST routes share: admin-only and per-context guards, the media
 * types of state-changing requests, JSON body validation and the mapping of
 * failures to HTTP statuses.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import { openContext, type Need } from "../auth/access";
import { isAdmin } from "../auth/caller";
import type { ErrorKind, Failure } from "../errors";
import type { AppEnv } from "../app";
import { CONTEXT_NAME_PATTERN, INVALID_CONTEXT_NAME } from "../limits";
import { decodeUtf8, describeMalformed, malformedIn, notUtf8Json } from "../text";

/** The HTTP status of each domain failure kind. */
export const STATUS: Record<ErrorKind, ContentfulStatusCode> = {
  Invalid: 400,
  Forbidden: 403,
  NotFound: 404,
  Conflict: 409,
  TooLarge: 413,
};

/**
 * The `error` code of each domain failure kind in an /api answer: lower snake case, like every other code the
 * Worker answers with (`invalid_context`, `forbidden_origin`) and OAuth's (`invalid_grant`).
 */
export const CODE: Record<ErrorKind, string> = {
  Invalid: "invalid",
  Forbidden: "forbidden",
  NotFound: "not_found",
  Conflict: "conflict",
  TooLarge: "too_large",
};

/** A failure as its status; an internal one (logged where it happened) answers like the Worker's own 500s, plus its reference. */
export const failed = (c: Context<AppEnv>, f: Failure) =>
  f.kind === "Internal" ? internalError(c, f.ref) : c.json({ error: CODE[f.kind], message: f.message }, STATUS[f.kind]);

/** The 500 for an internal error logged under `ref`: the reference, never the error. */
const internalError = (c: Context<AppEnv>, ref: string, extra: Record<string, unknown> = {}) =>
  c.json({ error: "internal_error", message: `Internal server error (ref ${ref}).`, ...extra }, 500);

export const invalid = (c: Context<AppEnv>, message: string) => c.json({ error: CODE.Invalid, message }, 400);

/** A yes/no query parameter: absent, `false` or `0` is no, `true` or `1` yes; anything else is the 400 to send, not a quiet no. */
export function readFlag(c: Context<AppEnv>, name: string): { ok: true; value: boolean } | { ok: false; response: Response } {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "false" || raw === "0") return { ok: true, value: false };
  if (raw === "true" || raw === "1") return { ok: true, value: true };
  return { ok: false, response: invalid(c, `${name}: true or false (or 1 or 0), not ${JSON.stringify(raw.slice(0, 40))}.`) };
}

/** Only the administrator (ADMIN_TOKEN, or open local mode) passes. */
export const requireAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!isAdmin(c.get("caller"))) {
    return c.json({ error: CODE.Forbidden, message: "This route needs the administrator's token (ADMIN_TOKEN)." }, 403);
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

/** The request's JSON body, UTF-8 and well-formed (src/text.ts) and checked against `schema`, or the 400 response to send. */
export async function readBody<T extends z.ZodType>(c: Context<AppEnv>, schema: T): Promise<{ ok: true; value: z.infer<T> } | { ok: false; response: Response }> {
  const decoded = decodeUtf8(await c.req.arrayBuffer());
  if (!decoded.ok) return { ok: false, response: invalid(c, notUtf8Json("The body", decoded.at)) };
  let json: unknown;
  try {
    json = JSON.parse(decoded.text);
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

/** The media type a body of this route is sent as: JSON, or JSON Lines for the import. */
export const JSON_MEDIA: readonly string[] = ["application/json"];
export const JSONL_MEDIA: readonly string[] = ["application/x-ndjson", "application/jsonl"];

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The media type of `Content-Type` (lower case, no parameters), or undefined without one. */
const mediaType = (header: string | undefined) => header?.split(";")[0]?.trim().toLowerCase() || undefined;

/**
 * A state-changing request must be one no page can send without a CORS
 * preflight, which only accepted origins pass (src/auth/origin.ts): a form or
 * a no-cors fetch can send only `text/plain`, `multipart/form-data` or
 * `application/x-www-form-urlencoded` bodies, and no `Authorization`. So it
 * declares its body as one of `media`, or, sending no body (a purge, a
 * revocation), declares `application/json` anyway or carries `Authorization`.
 * Anything else is 415 before the route runs.
 */
export const requireMedia =
  (mediaFor: (c: Context<AppEnv>) => readonly string[]): MiddlewareHandler<AppEnv> =>
  async (c, next) => {
    if (!STATE_CHANGING.has(c.req.method)) return next();
    const media = mediaFor(c);
    const declared = mediaType(c.req.header("Content-Type"));
    if (declared !== undefined) {
      if (media.includes(declared) || (declared === "application/json" && bodyless(c.req.raw))) return next();
      return unsupported(c, `${c.req.method} ${c.req.path} takes Content-Type ${media.join(" or ")}, not ${declared}.`);
    }
    if (bodyless(c.req.raw) && c.req.header("Authorization") !== undefined) return next();
    return unsupported(
      c,
      `${c.req.method} ${c.req.path} needs Content-Type ${media.join(" or ")}${bodyless(c.req.raw) ? ' (or, without a body, an "Authorization" header)' : ""}.`,
    );
  };

const bodyless = (request: Request) => request.body === null || request.headers.get("Content-Length") === "0";

const unsupported = (c: Context<AppEnv>, message: string) => c.json({ error: "unsupported_media_type", message }, 415);
