/**
 * The consent page and bad input: what the page shows and its headers,
 * wrong tokens, Deny, refused narrowing, PKCE rules, redirect URI matching,
 * and the token endpoint's RFC error codes. A refused request stores no grant.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { registryOf } from "../../src/registry/Registry";
import { authorize, authorizeUrl, consentPage, pkce, postConsent, REDIRECT, register, RESOURCE, tokenRequest } from "../helpers/oauth";
import { ADMIN, BASE, mint, secured } from "../helpers/teams";

/** The form's one row as shown for a token granted `default=read`, kept as it is. */
const ONE_ROW = { rows: "1", grant: "0", "context-0": "default", "role-0": "read" };

/** How many OAuth grants the Registry holds for a consenting token id. */
async function grantsOf(tokenId: string): Promise<number> {
  const listed = await registryOf(env).listOAuthGrants(true, tokenId);
  return listed.ok ? listed.value.length : -1;
}

async function started(redirect = REDIRECT) {
  const { client_id: clientId } = await register();
  const { verifier, challenge } = await pkce();
  const url = authorizeUrl({ clientId, challenge, redirect });
  return { clientId, verifier, url, page: await consentPage(url) };
}

describe("the consent page", () => {
  it("shows the client's name, the redirect host and a field labelled Token, with the web page's headers and form-action for itself and the client", async () => {
    const { page } = await started();
    expect(page.res.status).toBe(200);
    expect(page.html).toContain("Test Client");
    expect(page.html).toContain("127.0.0.1");
    expect(page.html).toMatch(/<label for="token">Token<\/label>/);
    expect(page.html).toContain('href="/ui/app.css"');
    const csp = page.res.headers.get("Content-Security-Policy") ?? "";
    expect(csp).toContain("form-action 'self' http://127.0.0.1:9999");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(page.res.headers.get("X-Frame-Options")).toBe("DENY");
    expect(page.res.headers.get("Cache-Control")).toBe("no-store");
    expect(page.cookie).toMatch(/^__Host-oauth-consent/);
  });

  it("escapes what the client chose (its name) everywhere the page shows it: the title, the heading, the text and the grants' heading", async () => {
    const { client_id: clientId } = await register(secured, { client_name: '<script>alert("x")</script>' });
    const page = await consentPage(authorizeUrl({ clientId, challenge: (await pkce()).challenge }));
    expect(page.html).not.toContain("<script>alert");
    expect(page.html.match(/&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;/g)).toHaveLength(4);
  });

  it("re-shows the form with an error for a wrong token, grants nothing, and then accepts the right one with the same handle", async () => {
    const owner = await mint([{ context: "default", role: "read" }]);
    const { url, page } = await started();
    for (const token of ["wrong", `${ADMIN}x`, `eg_${"B".repeat(43)}`]) {
      const res = await postConsent(url, page.cookie, { handle: page.handle, decision: "allow", token });
      expect(res.status, token).toBe(400);
      const html = await res.text();
      expect(html).toContain("That token is not valid here");
      expect(html).toContain(page.handle);
      expect(res.headers.get("Location")).toBeNull();
    }
    expect(await grantsOf(owner.id)).toBe(0);
    const ok = await postConsent(url, page.cookie, { handle: page.handle, decision: "allow", token: owner.token, ...ONE_ROW });
    expect(ok.status).toBe(302);
    expect(await grantsOf(owner.id)).toBe(1);
  });

  it("shows the token's grants before anything is granted (Continue, or Allow without them), to narrow", async () => {
    const owner = await mint([
      { context: "team-*", role: "write" },
      { context: "notes", role: "read" },
    ]);
    const { url, page } = await started();
    const bare = await postConsent(url, page.cookie, { handle: page.handle, decision: "allow", token: owner.token });
    expect(bare.status).toBe(200);
    expect(await bare.text()).toContain('value="team-*"');
    const res = await postConsent(url, page.cookie, { handle: page.handle, decision: "review", token: owner.token });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<button type="submit" name="decision" value="allow">\s*Allow/);
    expect(html).toContain('value="team-*"');
    expect(html).toContain('value="notes"');
    // A read grant offers no higher role.
    expect(html).toMatch(/name="role-1"[^>]*>\s*<option value="read" selected="">read<\/option><\/select>/);
    expect(await grantsOf(owner.id)).toBe(0);
  });

  it("refuses to widen: a higher role or a context outside the grant re-shows the form and grants nothing", async () => {
    const owner = await mint([{ context: "team-*", role: "read" }]);
    const { url, page } = await started();
    for (const [context, role] of [
      ["team-*", "write"],
      ["other", "read"],
      ["*", "read"],
    ]) {
      const res = await postConsent(url, page.cookie, {
        handle: page.handle,
        decision: "allow",
        token: owner.token,
        rows: "1",
        grant: "0",
        "context-0": context ?? "",
        "role-0": role ?? "",
      });
      expect(res.status, `${context} ${role}`).toBe(400);
    }
    // team-* matches these as a glob, but none is a context name: refused, with the typed text cut.
    for (const context of ["team-a,secret", `team-${"a".repeat(50_000)}<script>`, "team-A"]) {
      const res = await postConsent(url, page.cookie, {
        handle: page.handle,
        decision: "allow",
        token: owner.token,
        rows: "1",
        grant: "0",
        "context-0": context,
        "role-0": "read",
      });
      expect(res.status, context.slice(0, 20)).toBe(400);
      const html = await res.text();
      expect(html).toContain("is not a context name");
      expect(html.length).toBeLessThan(20_000);
    }
    const none = await postConsent(url, page.cookie, { handle: page.handle, decision: "allow", token: owner.token, rows: "1" });
    expect(await none.text()).toContain("Keep at least one grant");
    expect(await grantsOf(owner.id)).toBe(0);
  });

  it("Deny redirects to the client with error=access_denied and its state, and grants nothing", async () => {
    const owner = await mint([{ context: "default", role: "read" }]);
    const { url, page } = await started();
    const res = await postConsent(url, page.cookie, { handle: page.handle, decision: "deny" });
    expect(res.status).toBe(302);
    const location = new URL(String(res.headers.get("Location")));
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("st-1");
    // The handle is spent: a later Allow cannot use it.
    const late = await postConsent(url, page.cookie, { handle: page.handle, decision: "allow", token: owner.token, ...ONE_ROW });
    expect(late.status).toBe(400);
    expect(await grantsOf(owner.id)).toBe(0);
  });

  it("refuses a post without the browser's binding cookie", async () => {
    const owner = await mint([{ context: "default", role: "read" }]);
    const { url, page } = await started();
    const res = await postConsent(url, "", { handle: page.handle, decision: "allow", token: owner.token, ...ONE_ROW });
    expect(res.status).toBe(400);
    expect(await grantsOf(owner.id)).toBe(0);
  });
});

describe("bad authorization requests", () => {
  it("requires PKCE with S256: a missing challenge and the plain method are refused with invalid_request at the registered redirect", async () => {
    const { client_id: clientId } = await register();
    for (const params of [{ clientId }, { clientId, challenge: "a".repeat(43), method: "plain" }]) {
      const res = await secured(authorizeUrl(params), { redirect: "manual" });
      expect(res.status).toBe(302);
      const location = new URL(String(res.headers.get("Location")));
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get("error")).toBe("invalid_request");
    }
  });

  it("never redirects to an unregistered redirect URI or for an unknown client: an error page instead", async () => {
    const { client_id: clientId } = await register();
    const { challenge } = await pkce();
    for (const url of [
      authorizeUrl({ clientId, challenge, redirect: "https://evil.example/callback" }),
      authorizeUrl({ clientId, challenge, redirect: "http://127.0.0.1:9999/other" }),
      authorizeUrl({ clientId: "no-such-client", challenge }),
    ]) {
      const res = await secured(url, { redirect: "manual" });
      expect(res.status, url).toBe(400);
      expect(res.headers.get("Location")).toBeNull();
      expect(res.headers.get("Content-Security-Policy")).toContain("frame-ancestors 'none'");
    }
  });

  it("matches a loopback redirect URI whatever its port (RFC 8252)", async () => {
    const { challenge } = await pkce();
    const { client_id: clientId } = await register();
    const page = await consentPage(authorizeUrl({ clientId, challenge, redirect: "http://127.0.0.1:51234/callback" }));
    expect(page.res.status).toBe(200);
    expect(page.res.headers.get("Content-Security-Policy")).toContain("form-action 'self' http://127.0.0.1:51234");
  });

  it("refuses a resource other than this server's /mcp with invalid_target", async () => {
    const { client_id: clientId } = await register();
    const res = await secured(authorizeUrl({ clientId, challenge: (await pkce()).challenge, resource: `${BASE}/elsewhere` }), { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(new URL(String(res.headers.get("Location"))).searchParams.get("error")).toBe("invalid_target");
  });

  it("refuses to register a client whose only redirect URI is remote http", async () => {
    const res = await register(secured, { redirect_uris: ["http://evil.example/cb"] });
    expect(res.status).toBe(400);
    expect(String(res.json.error)).toMatch(/invalid_redirect_uri|invalid_client_metadata/);
  });
});

describe("garbage", () => {
  it("answers malformed requests to every OAuth endpoint with a 4xx, never a 500", async () => {
    const { page } = await started();
    const cases: [string, RequestInit][] = [
      ["/authorize", {}],
      ["/authorize?client_id=", {}],
      ["/authorize?client_id=x&redirect_uri=not%20a%20url", {}],
      ["/authorize", { method: "POST", body: "handle=x&decision=allow", headers: { "Content-Type": "application/x-www-form-urlencoded" } }],
      ["/authorize", { method: "POST", body: "{", headers: { "Content-Type": "application/json" } }],
      [
        "/authorize",
        {
          method: "POST",
          body: `handle=${page.handle}&decision=allow&token=${"x".repeat(70_000)}`,
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
        },
      ],
      ["/oauth/register", { method: "POST", body: "not json", headers: { "Content-Type": "application/json" } }],
      ["/oauth/register", { method: "POST", body: JSON.stringify({ redirect_uris: "x" }), headers: { "Content-Type": "application/json" } }],
      ["/oauth/token", { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } }],
      ["/oauth/token", { method: "POST", body: "grant_type=password&username=a&password=b", headers: { "Content-Type": "application/x-www-form-urlencoded" } }],
    ];
    for (const [path, init] of cases) {
      const res = await secured(`${BASE}${path}`, { ...init, redirect: "manual" });
      expect(res.status, `${init.method ?? "GET"} ${path}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${init.method ?? "GET"} ${path}`).toBeLessThan(500);
      expect(res.headers.get("Location"), path).toBeNull();
    }
  });
});

describe("the token endpoint's errors", () => {
  async function code(): Promise<{ clientId: string; verifier: string; code: string }> {
    const owner = await mint([{ context: "default", role: "read" }]);
    const { clientId, verifier, url, page } = await started();
    const res = await postConsent(url, page.cookie, { handle: page.handle, decision: "allow", token: owner.token, ...ONE_ROW });
    return { clientId, verifier, code: new URL(String(res.headers.get("Location"))).searchParams.get("code") ?? "" };
  }

  it("answers a wrong code_verifier with invalid_grant", async () => {
    const c = await code();
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code: c.code,
      redirect_uri: REDIRECT,
      client_id: c.clientId,
      code_verifier: (await pkce()).verifier,
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_grant");
  });

  it("answers a code used twice with invalid_grant", async () => {
    const c = await code();
    const fields = { grant_type: "authorization_code", code: c.code, redirect_uri: REDIRECT, client_id: c.clientId, code_verifier: c.verifier, resource: RESOURCE };
    expect((await tokenRequest(fields)).status).toBe(200);
    const again = await tokenRequest(fields);
    expect(again.status).toBe(400);
    expect(again.json.error).toBe("invalid_grant");
  });

  it("answers a redirect URI that does not match the authorization request with invalid_grant", async () => {
    const c = await code();
    const res = await tokenRequest({
      grant_type: "authorization_code",
      code: c.code,
      redirect_uri: "http://127.0.0.1:9999/other",
      client_id: c.clientId,
      code_verifier: c.verifier,
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/invalid_grant|invalid_request/);
  });

  it("answers an unknown client with invalid_client and a missing grant type with invalid_request", async () => {
    const unknown = await tokenRequest({
      grant_type: "authorization_code",
      code: "x:y:z",
      redirect_uri: REDIRECT,
      client_id: "nobody",
      code_verifier: "v".repeat(43),
    });
    expect(unknown.status).toBe(401);
    expect(unknown.json.error).toBe("invalid_client");
    const c = await code();
    const missing = await tokenRequest({ code: c.code, client_id: c.clientId });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatch(/invalid_request|unsupported_grant_type/);
  });

  it("answers an unknown refresh token with invalid_grant", async () => {
    const issued = await authorize(ADMIN);
    const res = await tokenRequest({ grant_type: "refresh_token", refresh_token: `${issued.refresh}x`, client_id: issued.clientId });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_grant");
  });
});
