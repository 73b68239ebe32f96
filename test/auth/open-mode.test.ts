/**
 * Credentials in open local mode (no ADMIN_TOKEN): no Authorization header
 * and an empty bearer (what `Bearer ${ENGRAM_TOKEN}` becomes with the
 * variable unset) are the local administrator; any other credential is
 * refused with 401 on /mcp and /api alike, never served as the administrator.
 * So the tokens API mints none there (409), and lists and revokes as before.
 */
import { describe, expect, it } from "vitest";
import { OPEN_MODE_NO_MINTING, OPEN_MODE_TOKEN } from "../../src/auth";
import { CLIENTS, freshContext, rejection, text, workerFetch } from "../helpers/clients";
import { changesOf, exportText } from "../helpers/context";
import { bearer, initialize, ISO_TIME, mint } from "../helpers/teams";

const open = workerFetch({ ADMIN_TOKEN: "" });
const LOCAL_BASE = "http://127.0.0.1:8787";
/** The empty bearers clients send: Claude Code's expansion of an unset variable, and what arrives once a header value is trimmed. */
const EMPTY = ["Bearer ", "Bearer", "bearer   ", ""];

describe.each(CLIENTS)("open local mode credentials (%s)", (_label, connect) => {
  it.each(EMPTY.map((h) => [JSON.stringify(h), h]))("serves an empty bearer %s as the local administrator", async (_shown, header) => {
    const context = freshContext("empty-bearer");
    const c = await connect({ url: `${LOCAL_BASE}/mcp`, fetch: open, headers: { Authorization: header } });
    const created = await c.call("create_entities", { context, entities: [{ name: "Ada", entityType: "person", observations: ["o"] }] });
    expect(created.isError, text(created)).toBeFalsy();
    await c.close();
    expect((await changesOf(context)).map((ch) => ch.callerId)).toEqual(["local"]);
    expect(await exportText(context)).toContain('"name":"Ada"');
  });

  it.each(["eg_bogus", `eg_${"A".repeat(43)}`, "not-a-token"])("refuses the unknown token %s with 401 and serves nothing", async (token) => {
    const context = freshContext("bogus");
    const refused = await rejection(connect({ url: `${LOCAL_BASE}/mcp/${context}`, fetch: open, headers: bearer(token) }));
    expect(refused.message).toMatch(/401|Unauthorized|invalid_token/i);
    const res = await initialize(`/mcp/${context}`, bearer(token), open, LOCAL_BASE);
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toContain('error="invalid_token"');
    expect(await res.json()).toMatchObject({ error: "invalid_token", message: OPEN_MODE_TOKEN });
  });
});

describe("open local mode credentials on /api", () => {
  it("serves no header and an empty bearer, and refuses any other credential with the same 401 as /mcp", async () => {
    for (const header of [undefined, ...EMPTY]) {
      const res = await open(`${LOCAL_BASE}/api/contexts`, header === undefined ? {} : { headers: { Authorization: header } });
      expect(res.status, JSON.stringify(header)).toBe(200);
    }
    const minted = await mint([{ context: "*", role: "admin" }]);
    for (const token of ["eg_bogus", minted.token]) {
      const res = await open(`${LOCAL_BASE}/api/contexts`, { headers: bearer(token) });
      expect(res.status, token).toBe(401);
      expect(await res.json()).toEqual({ error: "invalid_token", message: OPEN_MODE_TOKEN });
    }
  });

  it("refuses a token minted while ADMIN_TOKEN was set on /mcp too: open local mode takes no tokens", async () => {
    const minted = await mint([{ context: "*", role: "admin" }]);
    const res = await initialize("/mcp", bearer(minted.token), open, LOCAL_BASE);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: "invalid_token", message: OPEN_MODE_TOKEN });
  });
});

describe("open local mode and the tokens API", () => {
  const tokensApi = (init: RequestInit = {}, path = "/api/tokens") =>
    open(`${LOCAL_BASE}${path}`, { ...init, headers: { "Content-Type": "application/json", ...init.headers } });

  it("refuses to mint a token with 409, saying tokens need ADMIN_TOKEN, and records none", async () => {
    const name = freshContext("never-minted");
    const res = await tokensApi({ method: "POST", body: JSON.stringify({ name, grants: [{ context: "*", role: "read" }] }) });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: "conflict", message: OPEN_MODE_NO_MINTING });
    expect(OPEN_MODE_NO_MINTING).toContain("tokens need an ADMIN_TOKEN");
    const listed = (await (await tokensApi({ method: "GET" }, "/api/tokens?revoked=true")).json()) as { tokens: { name: string }[] };
    expect(listed.tokens.map((t) => t.name)).not.toContain(name);
  });

  it("still lists and revokes a token minted while ADMIN_TOKEN was set", async () => {
    const minted = await mint([{ context: "*", role: "read" }]);
    const listed = (await (await tokensApi({ method: "GET" })).json()) as { tokens: { id: string }[] };
    expect(listed.tokens.map((t) => t.id)).toContain(minted.id);
    const revoked = await tokensApi({ method: "DELETE" }, `/api/tokens/${minted.id}`);
    expect(revoked.status).toBe(200);
    expect(((await revoked.json()) as { token: { id: string; revokedAt: string } }).token).toMatchObject({
      id: minted.id,
      revokedAt: expect.stringMatching(ISO_TIME),
    });
  });
});
