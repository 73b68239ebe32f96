/**
 * Admin routes for API tokens, under /api/tokens:
 *
 *   POST   /api/tokens          {name, grants}  -> 201 with the token, shown this once (409 in open local mode)
 *   GET    /api/tokens[?revoked=true]           -> the tokens (never a token or its hash)
 *   DELETE /api/tokens/:ref[?by=id|name]        -> revoke by id ("tok_...") or live name
 *
 * Open local mode (no ADMIN_TOKEN) refuses every token (src/auth/index.ts),
 * so it mints none; its tokens can still be listed and revoked.
 *
 * Token names may not start with "tok_", so without `by` a ref starting with
 * it is an id and any other ref a name; `by` settles the one ambiguous case,
 * a live token named like an id before that rule (src/registry/tokens.ts).
 *
 * A revocation is immediate in this isolate and reaches every other isolate
 * within TOKEN_CACHE_SECONDS (src/auth/cache.ts). It revokes the OAuth
 * grants the token consented to as well (src/api/oauth.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import { OPEN_MODE_NO_MINTING, openLocalMode } from "../auth";
import { tokenCache } from "../auth/cache";
import { grantProblem, patternProblem, ROLES } from "../auth/grants";
import { endProviderGrants } from "../auth/oauth";
import { mintToken } from "../auth/tokens";
import type { AppEnv } from "../app";
import { fail } from "../errors";
import { registryOf } from "../registry/Registry";
import { reservedNameProblem } from "../registry/tokens";
import { failed, invalid, readBody, readFlag, requireAdmin } from "./http";
import { shownCredential } from "./times";

/** Names reserved for the built-in callers, so the audit log's "who" is never ambiguous. */
const RESERVED = new Set(["admin", "local", "system"]);
const MAX_GRANTS = 100;

const CreateToken = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, "name must match [A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
    .refine((n) => !RESERVED.has(n.toLowerCase()), "name must not be admin, local or system")
    .superRefine((n, ctx) => {
      const problem = reservedNameProblem(n);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
  grants: z
    .array(
      z.object({
        context: z.string().superRefine((pattern, ctx) => {
          const problem = patternProblem(pattern);
          if (problem) ctx.addIssue({ code: "custom", message: `${JSON.stringify(pattern)} ${problem}` });
        }),
        role: z.enum(ROLES),
        create: z.boolean().optional(),
      }),
    )
    .min(1, "give at least one grant")
    .max(MAX_GRANTS, `at most ${MAX_GRANTS} grants`),
});

export const tokens = new Hono<AppEnv>();

tokens.post("/", requireAdmin, async (c) => {
  // A token minted here would only ever meet the 401 of open local mode; listing and revoking stay open.
  if (openLocalMode(c.env)) return failed(c, fail("Conflict", OPEN_MODE_NO_MINTING));
  const body = await readBody(c, CreateToken);
  if (!body.ok) return body.response;
  const grants = body.value.grants.map((g) => ({ context: g.context, role: g.role, ...(g.create ? { create: true } : {}) }));
  const problem = grantProblem(grants);
  if (problem) return invalid(c, problem);
  const minted = await mintToken();
  const created = await registryOf(c.env).createToken({ id: minted.id, name: body.value.name, hash: minted.hash, grants }, c.get("caller").id);
  if (!created.ok) return failed(c, created);
  return c.json({ ...shownCredential(created.value), token: minted.token, note: "Store this token now: it is shown once and cannot be recovered." }, 201);
});

tokens.get("/", requireAdmin, async (c) => {
  const revoked = readFlag(c, "revoked");
  if (!revoked.ok) return revoked.response;
  const listed = await registryOf(c.env).listTokens(revoked.value);
  if (!listed.ok) return failed(c, listed);
  return c.json({ tokens: listed.value.map(shownCredential) });
});

tokens.delete("/:ref", requireAdmin, async (c) => {
  const by = c.req.query("by");
  if (by !== undefined && by !== "id" && by !== "name") return invalid(c, `by: must be id or name, not ${JSON.stringify(by)}`);
  const revoked = await registryOf(c.env).revokeToken(c.req.param("ref"), c.get("caller").id, by);
  if (!revoked.ok) return failed(c, revoked);
  tokenCache.forgetToken(revoked.value.id);
  // The Registry ended the token's OAuth grants with it; their tokens go from the provider's store too.
  const { oauthGrants, ...token } = revoked.value;
  await endProviderGrants(new URL(c.req.url), c.env, oauthGrants);
  return c.json({ token: shownCredential(token), oauthGrantsRevoked: oauthGrants.map((g) => g.id) });
});
