/**
 * OAuth grants (docs/oauth.md), under /api/oauth:
 *
 *   GET    /api/oauth/grants[?revoked=true]  -> the live grants (and the ended ones, with revokedAt and revokedReason):
 *                                            all for the administrator, a teammate's own otherwise
 *   DELETE /api/oauth/grants/:id             -> revoke one (the administrator any, a teammate their own)
 *
 * A revocation ends the grant in the Registry (binding at once in this
 * isolate, elsewhere within TOKEN_CACHE_SECONDS) and deletes its access and
 * refresh tokens at the OAuth provider (at once everywhere).
 */
import { Hono } from "hono";
import type { AppEnv } from "../app";
import { type Caller, isAdmin } from "../auth/caller";
import { endProviderGrants } from "../auth/oauth";
import { registryOf } from "../registry/Registry";
import type { OAuthGrantInfo } from "../registry/types";
import { failed, readFlag } from "./http";
import { shownCredential } from "./times";

export const oauth = new Hono<AppEnv>();

/** Whose grants the caller may see and revoke: everyone's (undefined) for the administrator, else their token's. */
const ownerOf = (caller: Caller): string | undefined => (isAdmin(caller) ? undefined : (caller.tokenId ?? caller.kind));

/** A grant as listed: no provider internals; `status` says at a glance whether it still works (revokedReason says why not). */
const shown = ({ providerId: _, ...g }: OAuthGrantInfo) => ({ ...shownCredential(g), status: g.revokedAt === null ? "live" : "revoked" });

oauth.get("/grants", async (c) => {
  const revoked = readFlag(c, "revoked");
  if (!revoked.ok) return revoked.response;
  const listed = await registryOf(c.env).listOAuthGrants(revoked.value, ownerOf(c.get("caller")));
  if (!listed.ok) return failed(c, listed);
  return c.json({ grants: listed.value.map(shown) });
});

oauth.delete("/grants/:id", async (c) => {
  const caller = c.get("caller");
  const revoked = await registryOf(c.env).revokeOAuthGrant(c.req.param("id"), caller.id, ownerOf(caller));
  if (!revoked.ok) return failed(c, revoked);
  await endProviderGrants(new URL(c.req.url), c.env, [revoked.value]);
  return c.json({ grant: shown(revoked.value) });
});
