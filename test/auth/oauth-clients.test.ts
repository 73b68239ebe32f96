/**
 * What the Worker checks of OAuth clients before the provider sees them:
 * bounded registration metadata, redirect URIs with real host names, a
 * per-address registration rate limit, and client ID metadata documents
 * only from public hosts. Raw HTTP against /oauth/register, /authorize and
 * /oauth/token; the consent page's CSP and its explanations.
 */
import { describe, expect, it } from "vitest";
import { isHostName, isPublicHost } from "../../src/auth/hosts";
import { LocalLimiter } from "../../src/auth/registration";
import { authorizeUrl, consentPage, nextAddress, pkce, postConsent, REDIRECT, register, tokenRequest } from "../helpers/oauth";
import { BASE, mint, secured } from "../helpers/teams";
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
