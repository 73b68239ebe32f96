/**
 * What the Worker checks of OAuth clients before the provider sees them:
 * bounded registration metadata, redirect URIs with real host names, a
 * per-address registration rate limit, and client ID metadata documents
 * only from public hosts, and a client name (or URI) without the characters
 * the name rule of src/text.ts refuses, however the client came to be.
 * Raw HTTP against /oauth/register, /authorize and /oauth/token; the consent
 * page's CSP and its explanations.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { isHostName, isPublicHost } from "../../src/auth/hosts";
import { oauthApi } from "../../src/auth/oauth";
import { LocalLimiter } from "../../src/auth/registration";
import { CIMD_REDIRECT, cimdClientId } from "../helpers/cimd";
import { authorizeUrl, consentPage, nextAddress, pkce, postConsent, REDIRECT, register, tokenRequest } from "../helpers/oauth";
import { ADMIN, BASE, mint, secured } from "../helpers/teams";
import { workerFetch } from "../helpers/clients";
import { withLogs } from "../helpers/logs";

const registerRaw = (body: string, address = nextAddress()) =>
  secured(`${BASE}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json", "CF-Connecting-IP": address }, body });

describe("client registration", () => {
  it("refuses a client_name over 1,000 characters, a URI over 2,000, and more than 10 redirect URIs, storing nothing", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ client_name: "x".repeat(1_000_000) }, /larger than 16384 bytes/],
      [{ client_name: "x".repeat(1001) }, /client_name/],
      [{ client_uri: `https://example.com/${"a".repeat(2000)}` }, /client_uri/],
      [{ redirect_uris: [`https://example.com/${"a".repeat(2000)}`] }, /redirect_uris/],
      [{ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://example.com/cb${i}`) }, /at most 10/],
      [{ contacts: ["x".repeat(2001)] }, /contacts/],
    ];
    for (const [body, message] of cases) {
      const res = await register(secured, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(String(res.json.error_description)).toMatch(message);
      expect(res.json.client_id).toBeUndefined();
    }
    expect((await registerRaw(JSON.stringify({ redirect_uris: [REDIRECT], client_name: "x".repeat(20_000) }))).status).toBe(400);
    // At the bounds, registration works.
    const fine = await register(secured, { client_name: "x".repeat(1000), redirect_uris: Array.from({ length: 10 }, (_, i) => `https://example.com/cb${i}`) });
    expect(fine.status).toBe(201);
  });

  it("refuses a redirect URI whose scheme runs or reads something instead of reaching the app, with invalid_redirect_uri", async () => {
    for (const uri of ["javascript:alert(1)", "JavaScript://x/%0aalert(1)", "data:text/html,hi", "vbscript:msgbox", "file:///etc/passwd"]) {
      const res = await register(secured, { redirect_uris: [uri] });
      expect(res.status, uri).toBe(400);
      expect(res.json.error, uri).toBe("invalid_redirect_uri");
      expect(String(res.json.error_description), uri).toMatch(/must not use the \w+: scheme/);
    }
  });

  it("refuses a jwks_uri off the public internet: the provider would fetch the client's keys from it", async () => {
    for (const uri of ["https://127.0.0.1/jwks.json", "https://10.0.0.8/jwks.json", "https://metadata.internal/jwks.json"]) {
      const res = await register(secured, { jwks_uri: uri, token_endpoint_auth_method: "private_key_jwt" });
      expect(res.status, uri).toBe(400);
      expect(res.json.error, uri).toBe("invalid_client_metadata");
      expect(String(res.json.error_description), uri).toContain("is not on the public internet");
    }
  });

  it("refuses redirect URIs whose host is not a host name: a CSP directive or a wildcard cannot ride in", async () => {
    for (const uri of ["https://a.com;sandbox/cb", "https://*.example/cb", "https://a.com%20script-src/cb", "https://a,b.com/cb", "myapp://a;b/cb"]) {
      const res = await register(secured, { redirect_uris: [uri] });
      expect(res.status, uri).toBe(400);
      expect(res.json.error, uri).toBe("invalid_redirect_uri");
    }
    for (const uri of ["https://app.example.com/cb", "http://127.0.0.1:8080/cb", "http://[::1]:9/cb"]) {
      expect((await register(secured, { redirect_uris: [uri] })).status, uri).toBe(201);
    }
  });

  it("rate-limits registration per client address with the platform binding: the 11th in a minute gets 429, another address is unaffected", async () => {
    const address = nextAddress();
    for (let i = 0; i < 10; i++) expect((await register(secured, {}, address)).status, `registration ${i + 1}`).toBe(201);
    const limited = await register(secured, {}, address);
    expect(limited.status).toBe(429);
    expect(limited.json.error).toBe("too_many_requests");
    expect((await register(secured, {}, nextAddress())).status).toBe(201);
  });

  it("the local stand-in allows `max` calls per key in each window, then refuses until the window turns", async () => {
    let now = 0;
    const limiter = new LocalLimiter(2, 60_000, () => now);
    const outcomes = async (key: string, n: number) => Promise.all(Array.from({ length: n }, () => limiter.limit({ key }).then((r) => r.success)));
    expect(await outcomes("a", 3)).toEqual([true, true, false]);
    expect(await outcomes("b", 1)).toEqual([true]);
    now = 59_999;
    expect(await outcomes("a", 1)).toEqual([false]);
    now = 60_000;
    expect(await outcomes("a", 3)).toEqual([true, true, false]);
  });
});

describe("client ID metadata documents", () => {
  const hosts = ["127.0.0.1", "localhost", "app.localhost", "10.0.0.8", "192.168.1.1", "172.16.0.1", "169.254.169.254", "[::1]", "[fe80::1]", "[fd00::1]"];
  const more = ["[::ffff:127.0.0.1]", "2130706433", "0x7f.1", "printer.local", "metadata.internal", "127.0.0.1.nip.io", "intranet"];

  it("refuses a client_id URL on a loopback, private or link-local host at /authorize with a 4xx, in token mode and open local mode", async () => {
    const { challenge } = await pkce();
    for (const f of [secured, workerFetch()]) {
      for (const host of [...hosts, ...more]) {
        const clientId = `https://${host}/client.json`;
        const res = await f(authorizeUrl({ clientId, challenge }), { redirect: "manual" });
        expect(res.status, clientId).toBe(400);
        expect(await res.text(), clientId).toMatch(/invalid_client/);
      }
    }
  });

  it("refuses one at /oauth/token with invalid_client, before any fetch", async () => {
    for (const host of hosts) {
      const res = await tokenRequest({ grant_type: "authorization_code", code: "a:b:c", client_id: `https://${host}/client.json`, code_verifier: "v" });
      expect(res.status, host).toBe(400);
      expect(res.json.error, host).toBe("invalid_client");
    }
  });

  it("refuses one however the token request names it: a repeated client_id, a Basic header's user, a client assertion's issuer", async () => {
    const internal = "https://127.0.0.1:9443/client.json";
    // base64url of the JSON's UTF-8 bytes, as a JWT carries it.
    const b64url = (v: unknown) =>
      btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(v))))
        .replace(/\+/g, "-")
        .replace(/\//g, "_")
        .replace(/=+$/, "");
    const assertion = `${b64url({ alg: "ES256" })}.${b64url({ iss: internal, sub: internal, aud: BASE })}.c2ln`;
    // Ideographic full stops: the URL parser reads the host as 127.0.0.1, once the payload is read as UTF-8.
    const ideographic = `${b64url({ alg: "ES256" })}.${b64url({ iss: "https://127\u30020\u30020\u30021:9443/x", aud: BASE })}.c2ln`;
    const form = (fields: [string, string][]) => new URLSearchParams(fields);
    const requests: [string, RequestInit][] = [
      [
        "upper-case scheme",
        {
          body: form([
            ["grant_type", "authorization_code"],
            ["code", "a:b:c"],
            ["client_id", "HTTPS://127.0.0.1:9443/client.json"],
          ]),
        },
      ],
      [
        "client assertion read as UTF-8",
        {
          body: form([
            ["grant_type", "authorization_code"],
            ["code", "a:b:c"],
            ["client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
            ["client_assertion", ideographic],
          ]),
        },
      ],
      [
        "repeated client_id",
        {
          body: form([
            ["grant_type", "authorization_code"],
            ["code", "a:b:c"],
            ["client_id", ""],
            ["client_id", internal],
          ]),
        },
      ],
      [
        "Basic header",
        {
          body: form([
            ["grant_type", "authorization_code"],
            ["code", "a:b:c"],
          ]),
          headers: { Authorization: `Basic ${btoa(`${encodeURIComponent(internal)}:secret`)}` },
        },
      ],
      [
        "client assertion",
        {
          body: form([
            ["grant_type", "authorization_code"],
            ["code", "a:b:c"],
            ["client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"],
            ["client_assertion", assertion],
          ]),
        },
      ],
    ];
    for (const [what, init] of requests) {
      const { value: res, logged } = await withLogs(() =>
        secured(`${BASE}/oauth/token`, {
          method: "POST",
          ...init,
          headers: { "Content-Type": "application/x-www-form-urlencoded", ...(init.headers as Record<string, string> | undefined) },
        }),
      );
      expect(res.status, what).toBe(400);
      const body = (await res.json()) as { error: string; error_description: string };
      expect(body.error, what).toBe("invalid_client");
      expect(body.error_description, what).toContain('"127.0.0.1" is not on the public internet');
      // Nothing was fetched: the provider logs every metadata fetch it tries.
      expect(logged, what).toEqual([]);
    }
  });

  it("answers a metadata document that cannot be fetched with a 4xx invalid_client, never a 500", async () => {
    const { challenge } = await pkce();
    const clientId = "https://engram-cimd-test.invalid-tld-for-tests.example.org/client.json";
    const { value: res, logged } = await withLogs(() =>
      secured(authorizeUrl({ clientId, challenge, redirect: "https://engram-cimd-test.example.org/cb" }), { redirect: "manual" }),
    );
    // The OAuth library logs the failed fetch itself (the workers tests answer every outbound fetch with a 502).
    expect(logged.map((l) => String(l.line.text))).toEqual([expect.stringMatching(/^CIMD fetch failed for https:\/\/engram-cimd-test\..*HTTP 502/)]);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(await res.text()).toMatch(/invalid_client/);
  });

  it("tells public hosts from the rest", () => {
    for (const h of ["example.com", "claude.ai", "8.8.8.8", "[2606:4700::1111]"]) expect(isPublicHost(h), h).toBe(true);
    const parsed = [...hosts, ...more].map((h) => new URL(`https://${h}/`).hostname);
    for (const h of [...parsed, "100.64.0.1", "0.0.0.0", "224.0.0.1", "[2002:7f00:1::]", "[64:ff9b::7f00:1]"]) expect(isPublicHost(h), h).toBe(false);
    for (const h of ["a.com;sandbox", "*.example", "a b", "-a.com"]) expect(isHostName(h), h).toBe(false);
  });
});

describe("the consent page", () => {
  it("explains a glob in the Context box where it is shown (test/e2e/oauth.e2e.ts measures the Token field)", async () => {
    const owner = await mint([
      { context: "*", role: "read" },
      { context: "team-*", role: "write" },
      { context: "notes", role: "write" },
    ]);
    const { client_id: clientId } = await register();
    const { challenge } = await pkce();
    const url = authorizeUrl({ clientId, challenge });
    const page = await consentPage(url);
    expect(page.html).toMatch(/<input id="token"[^>]*>/);
    const shown = await (await postConsent(url, page.cookie, { handle: page.handle, decision: "review", token: owner.token })).text();
    expect(shown).toContain('aria-describedby="context-hint-0"');
    expect(shown).toMatch(/id="context-hint-0"[^>]*>\* means every context this token may use/);
    expect(shown).toMatch(/id="context-hint-1"[^>]*>\* stands for any characters: team-\* means every context/);
    expect(shown).not.toContain('id="context-hint-2"');
  });
});

const RULE = "must not contain control characters, invisible (default-ignorable) characters outside emoji and joining scripts";

/** [what, a client name holding it, what the refusal names] */
const HIDDEN: [string, string, string][] = [
  ["a right-to-left override", "Claude\u202e", "U+202E at index 6 (a bidirectional control)"],
  ["a zero-width space", "Good App\u200b", "U+200B at index 8 (an invisible character)"],
  ["a NUL", "App\u0000", "U+0000 at index 3 (a control character)"],
  ["a line break", "Claude\nby Anthropic", "U+000A at index 6 (a control character)"],
  ["a line separator", "Claude\u2028x", "U+2028 at index 6 (a line separator)"],
];

/** Names the rule keeps: an emoji sequence, a Persian word's zero-width non-joiner, accents. */
const KEPT = ["Claude \u{1f469}\u200d\u{1f4bb}", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "Caf\u00e9 \u2764\ufe0f"];

/** How many clients the provider has stored (dynamic registrations; metadata-document clients are never stored). */
async function storedClients(): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  do {
    const page = await env.OAUTH_KV.list({ prefix: "client:", ...(cursor ? { cursor } : {}) });
    count += page.keys.length;
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return count;
}

describe("hidden characters in what the consent page shows", () => {
  it.each(HIDDEN)("refuses a client_name with %s at registration with 400 invalid_client_metadata, storing nothing", async (_what, name, where) => {
    const before = await storedClients();
    const res = await register(secured, { client_name: name });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_client_metadata");
    expect(String(res.json.error_description)).toBe(`client_name ${RULE}, bidirectional controls or line and paragraph separators: ${where}`);
    expect(res.json.client_id).toBeUndefined();
    expect(await storedClients()).toBe(before);
  });

  it("refuses a registration that is not UTF-8 (a Latin-1 name) instead of registering U+FFFD, storing nothing", async () => {
    const before = await storedClients();
    const json = new TextEncoder().encode(JSON.stringify({ redirect_uris: [REDIRECT], client_name: "Caf_", token_endpoint_auth_method: "none" }));
    const bytes = Uint8Array.from(json, (b, i) => (b === 0x5f && json[i + 1] === 0x22 ? 0xe9 : b));
    const res = await secured(`${BASE}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "CF-Connecting-IP": nextAddress() },
      body: bytes,
    });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as Record<string, unknown>;
    expect(answer.error).toBe("invalid_client_metadata");
    expect(String(answer.error_description)).toMatch(/^The registration is not valid UTF-8 \(at byte \d+ \(0xE9\)\)/);
    expect(await storedClients()).toBe(before);
  });

  it("refuses one in a URI or a localized name too (redirect URIs with invalid_redirect_uri), storing nothing", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ client_uri: "https://example.com/\u202eppa" }, "invalid_client_metadata", "client_uri"],
      [{ logo_uri: "https://example.com/logo\u200b.png" }, "invalid_client_metadata", "logo_uri"],
      [{ policy_uri: "https://exa\nmple.com/policy" }, "invalid_client_metadata", "policy_uri"],
      [{ tos_uri: "https://example.com/\u0000tos" }, "invalid_client_metadata", "tos_uri"],
      [{ "client_name#ja-Jpan-JP": "\u30af\u30ed\u30fc\u30c9\u202e" }, "invalid_client_metadata", "client_name#ja-Jpan-JP"],
      [{ "client_uri#fr": "https://example.com/\u2066fr" }, "invalid_client_metadata", "client_uri#fr"],
      [{ redirect_uris: ["https://example.com/cb\u202e"] }, "invalid_redirect_uri", "redirect_uris"],
      [{ redirect_uris: ["myapp:/cb\u200b"] }, "invalid_redirect_uri", "redirect_uris"],
    ];
    const before = await storedClients();
    for (const [body, error, field] of cases) {
      const res = await register(secured, body);
      const label = JSON.stringify(body);
      expect(res.status, label).toBe(400);
      expect(res.json.error, label).toBe(error);
      expect(String(res.json.error_description), label).toContain(`${field} ${RULE}`);
    }
    expect(await storedClients()).toBe(before);
  });

  it("registers names the rule keeps, and the consent page shows them as sent", async () => {
    for (const name of KEPT) {
      const res = await register(secured, { client_name: name, "client_name#fa": name });
      expect(res.status, name).toBe(201);
      const page = await consentPage(authorizeUrl({ clientId: res.client_id, challenge: (await pkce()).challenge }));
      expect(page.res.status, name).toBe(200);
      expect(page.html, name).toContain(`<strong>${name}</strong>`);
    }
  });

  it.each(HIDDEN)(
    "refuses a metadata document whose client_name has %s at /authorize with a 400 invalid_client page that shows no form",
    async (_what, name, where) => {
      const res = await secured(authorizeUrl({ clientId: cimdClientId(name), challenge: (await pkce()).challenge, redirect: CIMD_REDIRECT }), {
        redirect: "manual",
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("Location")).toBeNull();
      const html = await res.text();
      expect(html).toContain("invalid_client: client_name");
      expect(html).toContain(where);
      expect(html).not.toContain(name);
      expect(html).not.toContain('name="handle"');
    },
  );

  it("refuses a stored client whose redirect URI the rule refuses at /authorize as invalid_request, shown and not redirected to", async () => {
    const redirect = "https://app.example.org/cb\u202e";
    const client = await oauthApi(new URL(BASE), env).createClient({ redirectUris: [redirect], clientName: "Fine App", tokenEndpointAuthMethod: "none" });
    const page = await consentPage(authorizeUrl({ clientId: client.clientId, challenge: (await pkce()).challenge, redirect }));
    expect(page.res.status).toBe(400);
    expect(page.res.headers.get("Location")).toBeNull();
    expect(page.html).toContain("invalid_request: redirect_uri");
    expect(page.handle).toBe("");
  });

  it("shows the consent page for a metadata document whose name the rule keeps, with the domain that published it", async () => {
    for (const name of ["Good App", ...KEPT]) {
      const page = await consentPage(authorizeUrl({ clientId: cimdClientId(name), challenge: (await pkce()).challenge, redirect: CIMD_REDIRECT }));
      expect(page.res.status, name).toBe(200);
      expect(page.html, name).toContain(`<strong>${name}</strong>`);
      expect(page.html, name).toContain("Published by <strong>cimd.engram-tests.example.org</strong>");
    }
  });

  it("refuses a stored client whose name the rule refuses (one registered before the rule) at /authorize, and grants nothing on a post", async () => {
    const client = await oauthApi(new URL(BASE), env).createClient({ redirectUris: [REDIRECT], clientName: "Claude\u202e", tokenEndpointAuthMethod: "none" });
    const url = authorizeUrl({ clientId: client.clientId, challenge: (await pkce()).challenge });
    const page = await consentPage(url);
    expect(page.res.status).toBe(400);
    expect(page.html).toContain("invalid_client: client_name");
    expect(page.html).toContain("U+202E at index 6");
    expect(page.handle).toBe("");
    const posted = await postConsent(url, page.cookie, { handle: "forged", decision: "allow", token: ADMIN });
    expect(posted.status).toBe(400);
    expect(posted.headers.get("Location")).toBeNull();
  });
});
