/**
 * OAuth as a connector meets it, against `wrangler dev` with an
 * ADMIN_TOKEN: the MCP SDK's own client OAuth support (a
 * StreamableHTTPClientTransport with an authProvider) discovers,
 * registers and sends the person to the consent page, which Chromium
 * fills in (the Token field, Allow, the form's CSP and cookie as a browser
 * applies them); the code comes back to a loopback callback, the SDK
 * exchanges it, and the client calls tools with the access token.
 */
import { createServer, type Server } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, requireChromium, startDev, type Browser, type Dev } from "./harness";

const ADMIN = "e2e-oauth-admin-secret-0123456789";

let dev: Dev;
let browser: Browser;
let callback: Server;
let redirectUrl: string;
/** The query of each request the callback server got (the authorization response). */
const arrivals: URLSearchParams[] = [];

/** An OAuth client's memory, as the SDK asks for it; the "redirect" is handed to Chromium. */
class Provider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | undefined;

  get redirectUrl() {
    return redirectUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "E2E Agent",
      redirect_uris: [redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${dev.url}/api${path}`, { ...init, headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json", ...init.headers } });
}

beforeAll(async () => {
  requireChromium();
  callback = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/callback") arrivals.push(url.searchParams);
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>done</title><p>You can close this window.</p>");
  });
  await new Promise<void>((done) => callback.listen(0, "127.0.0.1", () => done()));
  const address = callback.address();
  redirectUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/callback`;
  dev = await startDev({ ADMIN_TOKEN: ADMIN });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  await new Promise((done) => callback?.close(done));
});

describe("OAuth with the MCP SDK's client and the consent page in Chromium", () => {
  it("connects after the person pastes their token and presses Allow, then calls tools as '<token> via <client>'", async () => {
    const created = await api("/tokens", {
      method: "POST",
      body: JSON.stringify({ name: "erin", grants: [{ context: "e2e-oauth", role: "write", create: true }] }),
    });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };

    const provider = new Provider();
    const endpoint = new URL(`${dev.url}/mcp/e2e-oauth`);
    const first = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
    await expect(new Client({ name: "e2e", version: "1" }).connect(first)).rejects.toThrow(/Unauthorized/i);
    expect(provider.authorizationUrl?.pathname).toBe("/authorize");

    const page = await browser.context.newPage();
    const consent = await page.goto(String(provider.authorizationUrl));
    expect(consent?.status()).toBe(200);
    expect(consent?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    await expect(page.getByText("E2E Agent").first().isVisible()).resolves.toBe(true);
    // A wrong token first: the form comes back with an error, nothing is sent to the client.
    await page.getByLabel("Token", { exact: true }).fill("not-a-token");
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("not valid");
    expect(arrivals).toHaveLength(0);
    // The right token: the page shows what the grant will carry, then Allow grants it.
    await page.getByLabel("Token", { exact: true }).fill(token);
    // The field is wide enough for a whole API token: none of it scrolls out of view.
    const fits = await page.getByLabel("Token", { exact: true }).evaluate((el) => {
      const input = el as unknown as { type: string; scrollWidth: number; clientWidth: number };
      input.type = "text";
      const whole = input.scrollWidth <= input.clientWidth;
      input.type = "password";
      return whole;
    });
    expect(token).toHaveLength(46);
    expect(fits).toBe(true);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("button", { name: "Allow" }).waitFor();
    expect(await page.getByLabel("Context (e2e-oauth, or one name it matches)").inputValue()).toBe("e2e-oauth");
    expect(await page.getByLabel("Role on e2e-oauth").inputValue()).toBe("write");
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUrl));
    await page.close();

    expect(arrivals).toHaveLength(1);
    const code = arrivals[0]?.get("code");
    expect(code, String(arrivals[0])).toBeTruthy();
    await first.finishAuth(String(code));
    expect(provider.saved?.refresh_token).toBeTruthy();

    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: provider }));
    const created2 = await client.callTool({ name: "create_entities", arguments: { entities: [{ name: "oauth-e2e", entityType: "t", observations: ["o"] }] } });
    expect(created2.isError).toBeFalsy();
    const history = await client.callTool({ name: "memory_history", arguments: {} });
    expect((history.structuredContent as { changes: { caller: string }[] }).changes[0]?.caller).toBe("erin via E2E Agent");
    await client.close();

    const grants = (await (await api("/oauth/grants")).json()) as { grants: { clientName: string; tokenName: string; lastUsedAt: number | null }[] };
    expect(grants.grants).toEqual([expect.objectContaining({ clientName: "E2E Agent", tokenName: "erin", lastUsedAt: expect.any(String) })]);
  });
});
