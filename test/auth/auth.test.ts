import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { tokenCache } from "../../src/auth/cache";
import { registryOf } from "../../src/registry/Registry";
import { workerFetch } from "../helpers/clients";
import { ADMIN, api, bearer, initialize, ISO_TIME, mint, secured } from "../helpers/teams";
import { withLogs } from "../helpers/logs";

afterEach(() => {
  tokenCache.now = Date.now;
  tokenCache.clear();
});

describe("authentication with ADMIN_TOKEN configured", () => {
  it("refuses a request without a token with 401 and WWW-Authenticate: Bearer, on /mcp, /mcp/<ctx> and /api", async () => {
    for (const path of ["/mcp", "/mcp/default", "/api/tokens", "/api/contexts/default/export"]) {
      const res = path.startsWith("/mcp") ? await initialize(path, {}) : await secured(`http://localhost${path}`);
      expect(res.status, path).toBe(401);
      expect(res.headers.get("WWW-Authenticate"), path).toMatch(/^Bearer/);
    }
  });

  it("refuses an unknown token, a wrong admin token and a well-formed but never-minted API token with 401", async () => {
    const fake = `eg_${"A".repeat(43)}`;
    for (const token of ["nope", `${ADMIN}x`, fake]) {
      const res = await initialize("/mcp", bearer(token));
      expect(res.status, token).toBe(401);
      expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
    }
  });

  it("accepts the administrator's token and a minted API token", async () => {
    expect((await initialize("/mcp", bearer(ADMIN))).status).toBe(200);
    const t = await mint([{ context: "*", role: "read" }]);
    expect(t.token).toMatch(/^eg_[A-Za-z0-9_-]{43}$/);
    expect((await initialize("/mcp", bearer(t.token))).status).toBe(200);
  });

  it("accepts ADMIN_TOKEN given as sha256:<hex> of the secret", async () => {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("hashed-secret")));
    const hex = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
    const f = workerFetch({ ADMIN_TOKEN: `sha256:${hex}` });
    expect((await initialize("/mcp", bearer("hashed-secret"), f)).status).toBe(200);
    expect((await initialize("/mcp", bearer(`sha256:${hex}`), f)).status).toBe(401);
  });

  it("stops accepting a token revoked elsewhere once the cache bound (TOKEN_CACHE_SECONDS, default 30) has passed", async () => {
    let now = 1_000_000;
    tokenCache.now = () => now;
    const t = await mint([{ context: "default", role: "read" }]);
    expect((await initialize("/mcp", bearer(t.token))).status).toBe(200);
    // Another isolate revokes it: this isolate's cache does not hear about it.
    const revoked = await registryOf(env).revokeToken(t.id, "test");
    expect(revoked.ok).toBe(true);
    now += 29_999;
    expect((await initialize("/mcp", bearer(t.token))).status).toBe(200);
    now += 1;
    expect((await initialize("/mcp", bearer(t.token))).status).toBe(401);
  });

  it("stops accepting a token at once in the isolate that revoked it", async () => {
    const t = await mint([{ context: "default", role: "read" }]);
    expect((await initialize("/mcp", bearer(t.token))).status).toBe(200);
    expect((await api(`/tokens/${t.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await initialize("/mcp", bearer(t.token))).status).toBe(401);
  });

  it("looks a token up on every request when TOKEN_CACHE_SECONDS is 0", async () => {
    const f = workerFetch({ ADMIN_TOKEN: ADMIN, TOKEN_CACHE_SECONDS: "0" });
    const t = await mint([{ context: "default", role: "read" }]);
    expect((await initialize("/mcp", bearer(t.token), f)).status).toBe(200);
    await registryOf(env).revokeToken(t.id, "test");
    expect((await initialize("/mcp", bearer(t.token), f)).status).toBe(401);
  });

  it("answers 500 naming the variable when TOKEN_CACHE_SECONDS is out of range", async () => {
    const f = workerFetch({ ADMIN_TOKEN: ADMIN, TOKEN_CACHE_SECONDS: "120" });
    // The operator's mistake is logged once, at error level: that line is part of what is checked.
    const { value: res, logged } = await withLogs(() => initialize("/mcp", bearer(ADMIN), f));
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("TOKEN_CACHE_SECONDS");
    expect(logged).toEqual([{ level: "error", line: { event: "bad_settings", message: expect.stringContaining("TOKEN_CACHE_SECONDS") } }]);
  });

  it("records when a token was last used", async () => {
    const t = await mint([{ context: "default", role: "read" }]);
    const before = (await (await api("/tokens")).json()) as { tokens: { id: string; lastUsedAt: string | null }[] };
    expect(before.tokens.find((x) => x.id === t.id)?.lastUsedAt).toBeNull();
    await initialize("/mcp", bearer(t.token));
    const after = (await (await api("/tokens")).json()) as { tokens: { id: string; lastUsedAt: string | null }[] };
    expect(after.tokens.find((x) => x.id === t.id)?.lastUsedAt).toMatch(ISO_TIME);
  });
});

describe("without ADMIN_TOKEN", () => {
  const open = workerFetch({ ADMIN_TOKEN: "" });

  it("serves loopback hosts in open local mode, with no token", async () => {
    for (const base of ["http://localhost", "http://127.0.0.1:8787", "http://[::1]:8787"]) {
      expect((await initialize("/mcp", {}, open, base)).status, base).toBe(200);
    }
  });

  it("refuses every other host with 403 saying to set ADMIN_TOKEN, even with a token", async () => {
    for (const headers of [{}, bearer("anything")]) {
      const res = await initialize("/mcp", headers, open, "https://memory.example.com");
      expect(res.status).toBe(403);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe("forbidden_host");
      expect(body.message).toContain('"memory.example.com"');
      expect(body.message).toContain("ADMIN_TOKEN");
    }
    expect((await open("https://memory.example.com/api/tokens")).status).toBe(403);
  });

  it("does not accept API tokens on a non-loopback host", async () => {
    const t = await mint([{ context: "*", role: "admin" }]);
    expect((await initialize("/mcp", bearer(t.token), open, "https://memory.example.com")).status).toBe(403);
  });
});

describe("DNS-rebinding protection (Host)", () => {
  const open = workerFetch({ ADMIN_TOKEN: "" });
  // What the MCP conformance suite's dns-rebinding-protection scenario sends to a local server.
  const rebound = { Host: "evil.example.com", Origin: "http://evil.example.com" };

  it("refuses a foreign Host with 403 before anything else, with and without ADMIN_TOKEN", async () => {
    for (const [mode, f] of [
      ["open", open],
      ["secured", secured],
    ] as const) {
      for (const path of ["/mcp", "/mcp/default", "/api/contexts/default/export"]) {
        for (const headers of [{ Host: "evil.example.com" }, rebound]) {
          const res = path.startsWith("/mcp") ? await initialize(path, headers, f, "http://127.0.0.1:8787") : await f(`http://127.0.0.1:8787${path}`, { headers });
          expect(res.status, `${mode} ${path} ${JSON.stringify(headers)}`).toBe(403);
          expect(((await res.json()) as { error: string }).error).toBe("forbidden_host");
        }
      }
    }
  });

  it("refuses the name an attacker's page resolves to 127.0.0.1 in open local mode (the URL carries the Host, as under wrangler dev)", async () => {
    for (const headers of [{}, { Origin: "http://evil.example.com" }] as Record<string, string>[]) {
      const res = await initialize("/mcp", headers, open, "http://evil.example.com:8787");
      expect(res.status).toBe(403);
      expect(((await res.json()) as { message: string }).message).toContain("DNS-rebinding");
    }
  });

  it("accepts any loopback name in Host for a loopback URL, and a workers.dev URL asked for by its name", async () => {
    for (const host of ["localhost:8787", "127.0.0.1:8787", "[::1]:8787", "LOCALHOST"]) {
      expect((await initialize("/mcp", { Host: host }, open, "http://127.0.0.1:8787")).status, host).toBe(200);
    }
    const dev = "https://engram.team.workers.dev";
    expect((await initialize("/mcp", { ...bearer(ADMIN), Host: "engram.team.workers.dev" }, secured, dev)).status).toBe(200);
    expect((await initialize("/mcp", { ...bearer(ADMIN), Host: "evil.example.com" }, secured, dev)).status).toBe(403);
  });
});

describe("Origin", () => {
  it("refuses a browser request from a foreign Origin with 403, even with a valid token, and before asking for one", async () => {
    const res = await initialize("/mcp", { ...bearer(ADMIN), Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect((await initialize("/mcp", { Origin: "https://evil.example" })).status).toBe(403);
    const local = await initialize("/mcp", { Origin: "https://evil.example" }, workerFetch({ ADMIN_TOKEN: "" }));
    expect(local.status).toBe(403);
    expect(((await local.json()) as { error: string }).error).toBe("forbidden_origin");
  });

  it("lets same-origin requests, listed origins and clients without Origin through", async () => {
    expect((await initialize("/mcp", { ...bearer(ADMIN), Origin: "http://localhost" })).status).toBe(200);
    const f = workerFetch({ ADMIN_TOKEN: ADMIN, ALLOWED_ORIGINS: "https://app.example.com" });
    expect((await initialize("/mcp", { ...bearer(ADMIN), Origin: "https://app.example.com" }, f)).status).toBe(200);
    expect((await initialize("/mcp", bearer(ADMIN))).status).toBe(200);
  });
});
