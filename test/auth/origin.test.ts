/**
 * Browser origins, CORS and the media types of state-changing /api requests
 * (src/auth/origin.ts, requireMedia in src/api/http.ts): the attacks of a
 * page on another loopback origin, made here the way a browser or curl
 * makes them.
 */
import { describe, expect, it } from "vitest";
import { connectV2, freshContext, json, workerFetch, type Fetch } from "../helpers/clients";
import { ADMIN, bearer, initialize, secured } from "../helpers/teams";
import { withLogs } from "../helpers/logs";

const SERVER = "http://127.0.0.1:8787";
/** Pages a user may have open on the same machine: neither is the server. */
const STRANGERS = ["http://127.0.0.2:8792", "http://localhost:3000", "http://127.0.0.1:8788", "https://127.0.0.1:8787", "null"];

const open = workerFetch({ ADMIN_TOKEN: "" });
const withListed = workerFetch({ ADMIN_TOKEN: ADMIN, ALLOWED_ORIGINS: " https://app.example.com/ , http://localhost:3000" });

/** A context in open local mode holding one entity; returns its export, the thing a purge would empty. */
async function seeded(): Promise<{ name: string; exported: () => Promise<string> }> {
  const name = freshContext("origin");
  const c = await connectV2({ url: `${SERVER}/mcp/${name}`, fetch: open });
  const created = await c.call("create_entities", { entities: [{ name: "Secret", entityType: "note", observations: ["the launch code"] }] });
  expect(created.isError).toBeUndefined();
  await c.close();
  const exported = async () => {
    const res = await open(`${SERVER}/api/contexts/${name}/export`);
    expect(res.status).toBe(200);
    return new TextDecoder().decode(await res.arrayBuffer());
  };
  expect(await exported()).toContain("the launch code");
  return { name, exported };
}

/** What a no-cors `fetch(url, { method: "POST", mode: "no-cors", body: "x" })` or `curl -d x -H 'Content-Type: text/plain'` sends. */
const purge = (f: Fetch, name: string, headers: Record<string, string>, body?: string) =>
  f(`${SERVER}/api/contexts/${name}/purge?confirm=${name}`, { method: "POST", headers, ...(body !== undefined ? { body } : {}) });

describe("browser origins in open local mode", () => {
  it("refuses another loopback origin on /mcp and /mcp/<ctx> with 403 and no CORS grant, so its page reads nothing", async () => {
    const { name } = await seeded();
    for (const origin of STRANGERS) {
      for (const path of ["/mcp", `/mcp/${name}`]) {
        const res = await initialize(path, { Origin: origin }, open, SERVER);
        expect(res.status, `${origin} ${path}`).toBe(403);
        expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
        const body = (await res.json()) as { error: string };
        expect(body.error).toBe("forbidden_origin");
        expect(JSON.stringify(body)).not.toContain("launch code");
      }
    }
  });

  it("refuses a no-cors text/plain purge from another loopback origin and purges nothing", async () => {
    const { name, exported } = await seeded();
    const before = await exported();
    for (const origin of STRANGERS) {
      const res = await purge(open, name, { Origin: origin, "Content-Type": "text/plain;charset=UTF-8" }, "");
      expect(res.status, origin).toBe(403);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    }
    expect(await exported()).toBe(before);
  });

  it("refuses a purge that a form or curl could send without declaring JSON, with 415, and purges nothing", async () => {
    const { name, exported } = await seeded();
    const before = await exported();
    const attempts: [Record<string, string>, string | undefined][] = [
      [{ "Content-Type": "text/plain" }, "x"],
      [{ "Content-Type": "text/plain" }, undefined],
      [{ "Content-Type": "application/x-www-form-urlencoded" }, "a=b"],
      [{ "Content-Type": "multipart/form-data; boundary=x" }, "--x--"],
      // A no-cors fetch with no body sends neither Content-Type nor Authorization.
      [{}, undefined],
    ];
    for (const [headers, body] of attempts) {
      const res = await purge(open, name, headers, body);
      expect(res.status, JSON.stringify(headers)).toBe(415);
      const answer = (await res.json()) as { error: string; message: string };
      expect(answer.error).toBe("unsupported_media_type");
      expect(answer.message).toContain("application/json");
    }
    expect(await exported()).toBe(before);
    // The same purge, declared as JSON (as `npm run admin -- context purge` sends it), goes through.
    const done = await purge(open, name, { "Content-Type": "application/json" });
    expect(done.status).toBe(200);
    const after = await open(`${SERVER}/api/contexts/${name}/export`);
    expect(new TextDecoder().decode(await after.arrayBuffer())).not.toContain("the launch code");
  });

  it("accepts the server's own origin and echoes it, with Vary: Origin and the MCP session header readable", async () => {
    for (const server of [SERVER, "http://localhost:8787", "http://[::1]:8787"]) {
      const res = await initialize("/mcp", { Origin: server }, open, server);
      expect(res.status, server).toBe(200);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(server);
      expect(res.headers.get("Vary")).toContain("Origin");
      expect(res.headers.get("Access-Control-Expose-Headers")).toContain("Mcp-Session-Id");
    }
    const name = freshContext("own");
    const c = await connectV2({ url: `${SERVER}/mcp/${name}`, fetch: open, headers: { Origin: SERVER } });
    const created = await c.call("create_entities", { entities: [{ name: "Mine", entityType: "note", observations: [] }] });
    expect(json<{ entities: unknown[] }>(created).entities).toHaveLength(1);
    await c.close();
  });

  it("lets clients that send no Origin (CLIs, IDEs) through, with no CORS grant", async () => {
    const res = await initialize("/mcp", {}, open, SERVER);
    expect(res.status).toBe(200);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("ALLOWED_ORIGINS", () => {
  it("echoes a listed origin, however the list spells it, and still refuses the rest", async () => {
    for (const origin of ["https://app.example.com", "http://localhost:3000"]) {
      const res = await initialize("/mcp", { ...bearer(ADMIN), Origin: origin }, withListed);
      expect(res.status, origin).toBe(200);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
    }
    expect((await initialize("/mcp", { ...bearer(ADMIN), Origin: "https://app.example.com.evil.example" }, withListed)).status).toBe(403);
    expect((await initialize("/mcp", { ...bearer(ADMIN), Origin: "http://app.example.com" }, withListed)).status).toBe(403);
  });

  it("answers 500 naming the variable when an entry is not an origin, instead of ignoring it", async () => {
    for (const value of ["*", "app.example.com", "https://app.example.com/path", "ftp://files.example.com"]) {
      const { value: res, logged } = await withLogs(() => initialize("/mcp", bearer(ADMIN), workerFetch({ ADMIN_TOKEN: ADMIN, ALLOWED_ORIGINS: value })));
      expect(res.status, value).toBe(500);
      // The operator's log says what is wrong, once.
      expect(logged, value).toEqual([
        { level: "error", line: { event: "bad_settings", message: expect.stringContaining(`ALLOWED_ORIGINS: ${JSON.stringify(value)} is not an origin`) } },
      ]);
      const body = (await res.json()) as { error: string; message: string };
      expect(body.error).toBe("misconfigured");
      expect(body.message).toContain("ALLOWED_ORIGINS");
    }
  });
});

/** A browser's preflight before a POST with a bearer token and the MCP headers. */
const preflight = (f: Fetch, url: string, origin: string, method = "POST") =>
  f(url, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": method,
      "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version,mcp-method,mcp-name",
    },
  });

const listed = (header: string | null) => (header ?? "").split(",").map((h) => h.trim().toLowerCase());

describe("preflights", () => {
  it("answers OPTIONS /mcp and /mcp/<ctx> from an accepted origin with 204 before authentication, with ADMIN_TOKEN set", async () => {
    for (const [f, base, origin] of [
      [secured, "http://localhost", "http://localhost"],
      [withListed, "https://memory.example.com", "https://app.example.com"],
    ] as const) {
      for (const path of ["/mcp", "/mcp/team-a"]) {
        const res = await preflight(f, `${base}${path}`, origin);
        expect(res.status, `${origin} ${path}`).toBe(204);
        expect(res.headers.get("Access-Control-Allow-Origin")).toBe(origin);
        expect(res.headers.get("Vary")).toContain("Origin");
        expect(listed(res.headers.get("Access-Control-Allow-Methods"))).toEqual(expect.arrayContaining(["get", "post", "delete"]));
        expect(listed(res.headers.get("Access-Control-Allow-Headers"))).toEqual(
          expect.arrayContaining([
            "authorization",
            "content-type",
            "mcp-memory-session",
            "mcp-protocol-version",
            "mcp-session-id",
            "last-event-id",
            "mcp-method",
            "mcp-name",
          ]),
        );
        expect(listed(res.headers.get("Access-Control-Expose-Headers"))).toEqual(expect.arrayContaining(["mcp-session-id", "www-authenticate"]));
        expect(Number(res.headers.get("Access-Control-Max-Age"))).toBeGreaterThan(0);
        expect(res.headers.get("WWW-Authenticate")).toBeNull();
      }
    }
  });

  it("answers an /api preflight the same way, announcing the methods the API serves", async () => {
    for (const path of ["/api/contexts/team-a/purge", "/api/tokens/tok_0000000000000000", "/api/contexts/team-a/export"]) {
      const res = await preflight(secured, `http://localhost${path}`, "http://localhost", "DELETE");
      expect(res.status, path).toBe(204);
      expect(res.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost");
      expect(listed(res.headers.get("Access-Control-Allow-Methods"))).toEqual(expect.arrayContaining(["get", "post", "patch", "delete"]));
      expect(listed(res.headers.get("Access-Control-Allow-Headers"))).toEqual(expect.arrayContaining(["authorization", "content-type"]));
    }
  });

  it("answers preflights in open local mode too, and refuses one from another origin with 403 and no CORS headers", async () => {
    const ok = await preflight(open, `${SERVER}/mcp/default`, SERVER);
    expect(ok.status).toBe(204);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe(SERVER);
    for (const [f, base] of [
      [open, SERVER],
      [secured, "http://localhost"],
    ] as const) {
      for (const path of ["/mcp/default", "/api/contexts/default/purge"]) {
        for (const origin of STRANGERS) {
          const res = await preflight(f, `${base}${path}`, origin);
          expect(res.status, `${origin} ${path}`).toBe(403);
          for (const header of ["Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers"]) {
            expect(res.headers.get(header), header).toBeNull();
          }
        }
      }
    }
  });
});

describe("CORS on answers", () => {
  it("lets an accepted origin read /api answers and a 401 with its WWW-Authenticate", async () => {
    const ok = await secured("http://localhost/api/tokens", { headers: { ...bearer(ADMIN), Origin: "http://localhost" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost");
    expect(ok.headers.get("Vary")).toContain("Origin");
    const denied = await initialize("/mcp/team-a", { Origin: "http://localhost" });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost");
    expect(listed(denied.headers.get("Access-Control-Expose-Headers"))).toContain("www-authenticate");
  });

  it("judges an authenticated /mcp request once, in front of the OAuth provider, and answers with that verdict's CORS headers", async () => {
    // The guard behind the provider reuses the verdict: an accepted origin still gets its headers on the MCP answer.
    const ok = await initialize("/mcp", { ...bearer(ADMIN), Origin: "http://localhost" });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("Access-Control-Allow-Origin")).toBe("http://localhost");
    expect(listed(ok.headers.get("Access-Control-Expose-Headers"))).toContain("mcp-session-id");
    // A foreign Origin or Host is refused before the valid token reaches the provider.
    const foreign = await initialize("/mcp", { ...bearer(ADMIN), Origin: "http://localhost:3000" });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("Access-Control-Allow-Origin")).toBeNull();
    const rebound = await initialize("/mcp", { ...bearer(ADMIN), Host: "evil.example.com" }, open, SERVER);
    expect(rebound.status).toBe(403);
  });

  it("refuses a foreign origin on /api before the token is looked at", async () => {
    const res = await secured("http://localhost/api/tokens", { headers: { ...bearer(ADMIN), Origin: "http://localhost:3000" } });
    expect(res.status).toBe(403);
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });
});

describe("media types of state-changing /api requests", () => {
  it("refuses a body that is not declared JSON with 415 and creates nothing, even with the admin's token", async () => {
    const name = freshContext("media");
    const attempts: [string, string][] = [
      ["text/plain", JSON.stringify({ name })],
      ["application/x-www-form-urlencoded", `name=${name}`],
      ["application/x-ndjson", JSON.stringify({ name })],
    ];
    for (const [type, body] of attempts) {
      const res = await secured("http://localhost/api/contexts", { method: "POST", headers: { ...bearer(ADMIN), "Content-Type": type }, body });
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as { message: string }).message).toContain(`not ${type}`);
    }
    const listedContexts = (await (await secured("http://localhost/api/contexts", { headers: bearer(ADMIN) })).json()) as { contexts: { name: string }[] };
    expect(listedContexts.contexts.map((c) => c.name)).not.toContain(name);
    const created = await secured("http://localhost/api/contexts", {
      method: "POST",
      headers: { ...bearer(ADMIN), "Content-Type": "application/json; charset=utf-8" },
      body: JSON.stringify({ name }),
    });
    expect(created.status).toBe(201);
  });

  it("takes the import as JSON Lines only, refusing text/plain and JSON with 415 and importing nothing", async () => {
    const name = freshContext("media");
    const line = JSON.stringify({ type: "entity", name: "Imported", entityType: "t", observations: [] });
    const post = (type: string) => open(`${SERVER}/api/contexts/${name}/import`, { method: "POST", headers: { "Content-Type": type }, body: line });
    for (const type of ["text/plain", "application/json"]) {
      const res = await post(type);
      expect(res.status, type).toBe(415);
      expect(((await res.json()) as { message: string }).message).toContain("application/x-ndjson");
    }
    // Nothing was imported: the context was not even created.
    expect((await open(`${SERVER}/api/contexts/${name}/export`)).status).toBe(404);
    for (const type of ["application/x-ndjson", "application/jsonl"]) {
      expect((await post(type)).status, type).toBe(200);
    }
  });

  it("takes a bodyless change with a bearer token and no Content-Type (no page can send Authorization without a preflight)", async () => {
    const minted = await secured("http://localhost/api/tokens", {
      method: "POST",
      headers: { ...bearer(ADMIN), "Content-Type": "application/json" },
      body: JSON.stringify({ name: freshContext("media-user"), grants: [{ context: "x", role: "read" }] }),
    });
    const { id } = (await minted.json()) as { id: string };
    const declaredText = await secured(`http://localhost/api/tokens/${id}`, { method: "DELETE", headers: { ...bearer(ADMIN), "Content-Type": "text/plain" } });
    expect(declaredText.status).toBe(415);
    expect((await secured(`http://localhost/api/tokens/${id}`, { method: "DELETE", headers: bearer(ADMIN) })).status).toBe(200);
  });
});
