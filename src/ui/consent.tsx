/** @jsxImportSource hono/jsx */
/**
 * The OAuth consent page at /authorize (docs/oauth.md): an MCP client sends
 * the person here, they prove who they are with a **Token** (an API token
 * or the ADMIN_TOKEN; nothing in open local mode), see which client asks,
 * where the access goes and what it may do (the token's grants, shown
 * before anything is granted), narrow that if they like, and press Allow
 * or Deny.
 *
 * ## Invariants
 * - The authorization request is validated by the OAuth provider before
 *   anything is shown; a request whose client or redirect URI is not
 *   registered gets an error here and is never redirected.
 * - What the page shows of the client (its name, the redirect URI) passes
 *   the checks a registration does (`shownClientProblem`), whether it came
 *   from a registration or a metadata document, or the page is not shown.
 * - PKCE with S256 is required (the provider refuses `plain`; a request
 *   without a challenge is refused here).
 * - The form carries only the provider's one-use handle, which a cookie
 *   binds to this browser; the request itself is recovered from storage.
 *   A wrong token re-shows the form and consumes nothing.
 * - The page's headers are the web page's (./routes.tsx), except that the
 *   form may post to this page and the browser may follow the redirect to
 *   the client; it is never framed.
 */
import {
  AuthorizationError,
  type AuthRequest,
  authorizationErrorRedirect,
  CimdFetchError,
  type ConsentDescription,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app";
import { type Consenter, consenterOfToken, type GrantChoice, localConsenter, narrowGrants } from "../auth/consent";
import type { Grant } from "../auth/grants";
import { adminKeyOf, endProviderGrants, oauthApi, OAUTH_PATHS, type OAuthProps, resourceOf } from "../auth/oauth";
import { nonPublicClientId, shownClientProblem } from "../auth/registration";
import { toHex } from "../auth/secrets";
import { errorRef } from "../errors";
import { registryOf } from "../registry/Registry";
import { OAUTH_GRANT_PREFIX } from "../registry/oauth";
import { ConsentForm, consentCsp, ErrorPage } from "./consent-page";

type Ctx = import("hono").Context<AppEnv>;

/** The page with its headers; `headers` may carry the provider's binding cookie, so it is sent as it is. */
function html(body: unknown, status: 200 | 400 | 500, headers: Headers, redirectUri?: string): Response {
  headers.set("Content-Type", "text/html; charset=utf-8");
  headers.set("Content-Security-Policy", consentCsp(redirectUri));
  headers.set("X-Frame-Options", "DENY");
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "no-referrer");
  headers.set("Cache-Control", "no-store");
  return new Response(`<!doctype html>${body}`, { status, headers });
}

const errorPage = (message: string, status: 400 | 500 = 400) => html(<ErrorPage message={message} />, status, new Headers());

const redirect = (location: string, headers = new Headers()) => {
  headers.set("Location", location);
  headers.set("Cache-Control", "no-store");
  return new Response(null, { status: 302, headers });
};

/** A validated request and what the page shows of it. */
interface Parsed {
  request: AuthRequest;
  details: ConsentDescription;
}

/** The validated request, or the response refusing it (a redirect only once the client and redirect URI are known good). */
async function parse(c: Ctx, api: OAuthHelpers): Promise<Parsed | Response> {
  // A client ID that is a URL is fetched by the provider: never from a host that is not public.
  const host = nonPublicClientId(c.req.query("client_id") ?? null);
  if (host !== undefined) return errorPage(`invalid_client: the client ID's host ${JSON.stringify(host)} is not on the public internet.`);
  let request: AuthRequest;
  let details: ConsentDescription;
  try {
    request = await api.parseAuthRequest(c.req.raw);
    details = await api.describeConsent(request);
  } catch (error) {
    if (error instanceof AuthorizationError) return error.redirectTo ? redirect(error.redirectTo) : errorPage(error.description);
    if (error instanceof CimdFetchError) return errorPage("invalid_client: the client's metadata document could not be fetched or is not valid.");
    throw error;
  }
  // A metadata document's client, or a stored one the registration checks never saw, gets them here:
  // the name is shown where a person grants access, and the redirect URI's origin goes into the CSP.
  const problem = shownClientProblem(details);
  if (problem) return errorPage(`${problem.error}: ${problem.description}.`);
  // The provider lets a confidential client skip PKCE; engram requires S256 from every client.
  if (!request.codeChallenge) return redirect(authorizationErrorRedirect(request, "invalid_request", "code_challenge with code_challenge_method=S256 is required"));
  return { request, details };
}

/** The form's grant rows as choices, by position. */
function choicesOf(form: Record<string, string | File | (string | File)[]>, count: number): GrantChoice[] {
  const kept = new Set([form.grant ?? []].flat().map(String));
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return Array.from({ length: count }, (_, i) => ({ keep: kept.has(String(i)), context: text(form[`context-${i}`]), role: text(form[`role-${i}`]) }));
}

export const consent = new Hono<AppEnv>();

consent.use(OAUTH_PATHS.authorize, bodyLimit({ maxSize: 64 * 1024, onError: () => errorPage("The form is too large.") }), async (c, next) => {
  if (!resourceOf(new URL(c.req.url))) return errorPage("OAuth needs https (or http on localhost): open this server at an https address.");
  await next();
});

consent.get(OAUTH_PATHS.authorize, async (c) => {
  const api = oauthApi(new URL(c.req.url), c.env);
  const parsed = await parse(c, api);
  if (parsed instanceof Response) return parsed;
  const { request, details } = parsed;
  const started = await api.beginConsent(request);
  const local = localConsenter(c.env);
  const form = <ConsentForm details={details} handle={started.handle} askToken={!local} {...(local ? { offered: local.grants } : {})} />;
  return html(form, 200, started.headers, details.redirectUri);
});

consent.post(OAUTH_PATHS.authorize, async (c) => {
  const url = new URL(c.req.url);
  const api = oauthApi(url, c.env);
  const parsed = await parse(c, api);
  if (parsed instanceof Response) return parsed;
  const { details } = parsed;
  const form = await c.req.parseBody({ all: true });
  const handle = typeof form.handle === "string" ? form.handle : "";
  try {
    if (form.decision !== "allow" && form.decision !== "review") {
      const denied = await api.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const token = typeof form.token === "string" ? form.token : "";
    const again = (error: string | undefined, consenter?: Consenter) =>
      html(
        <ConsentForm
          details={details}
          handle={handle}
          askToken={!localConsenter(c.env)}
          {...(error ? { error } : {})}
          {...(consenter ? { offered: consenter.grants, token } : {})}
        />,
        error ? 400 : 200,
        new Headers(),
        details.redirectUri,
      );
    const consenter = await consenterOfToken(c.env, token);
    if (!consenter) return again("That token is not valid here. Paste your engram API token or the ADMIN_TOKEN.");
    // The grants are always shown before they are granted: a post without the rows (Continue) shows them.
    if (form.decision === "review" || form.rows === undefined) return again(undefined, consenter);
    const narrowed = narrowGrants(consenter.grants, choicesOf(form, consenter.grants.length));
    if (!narrowed.ok) return again(narrowed.message, consenter);
    const approved = await api.approveConsent(c.req.raw, handle);
    return await grant(c, url, api, approved.request, approved.headers, details, consenter, narrowed.grants);
  } catch (error) {
    // The handle expired, was used, or belongs to another browser: nothing was granted.
    if (error instanceof AuthorizationError) return errorPage(error.description);
    throw error;
  }
});

/** Completes an approved authorization: the provider's grant, then the Registry's record of it, then the redirect. */
async function grant(
  c: Ctx,
  url: URL,
  api: OAuthHelpers,
  request: AuthRequest,
  headers: Headers,
  details: ConsentDescription,
  who: Consenter,
  grants: Grant[],
): Promise<Response> {
  const id = `${OAUTH_GRANT_PREFIX}${toHex(crypto.getRandomValues(new Uint8Array(8)))}`;
  const { redirectTo } = await api.completeAuthorization({
    request,
    userId: who.userId,
    metadata: { grant: id },
    scope: request.scope,
    props: {
      kind: "oauth",
      grant: id,
      tokenId: who.tokenId,
      grants,
      ...(who.tokenId === null && who.userId === "admin" && { adminKey: await adminKeyOf(c.env) }),
    } satisfies OAuthProps,
  });
  const providerId = await providerGrantId(api, who.userId, id);
  const recorded = providerId
    ? await registryOf(c.env).recordOAuthGrant(
        { id, providerId, userId: who.userId, tokenId: who.tokenId, tokenName: who.name, clientId: request.clientId, clientName: details.clientName, grants },
        who.name,
      )
    : undefined;
  if (!recorded?.ok) {
    // Without its Registry row the grant's tokens are refused anyway; end them at the provider too.
    if (providerId) await endProviderGrants(url, c.env, [{ id, providerId, userId: who.userId }]);
    const ref = errorRef();
    console.error(
      JSON.stringify({
        event: "internal_error",
        ref,
        where: "oauth.grant",
        ...(recorded ? { error: recorded.message } : { error: "grant not found at the provider" }),
      }),
    );
    return errorPage(`The grant could not be recorded (ref ${ref}). Try again.`, 500);
  }
  return redirect(redirectTo, headers);
}

/** The provider's id for the grant just made (found by the Registry id in its metadata). */
async function providerGrantId(api: OAuthHelpers, userId: string, id: string): Promise<string | undefined> {
  let cursor: string | undefined;
  do {
    const page = await api.listUserGrants(userId, cursor ? { cursor } : {});
    const found = page.items.find((g) => (g.metadata as { grant?: string } | undefined)?.grant === id);
    if (found) return found.id;
    cursor = page.cursor;
  } while (cursor);
  return undefined;
}
