import { describe, expect, it } from "vitest";
import { openedCount, type EntityAccessStats } from "../../src/context/stats";
import { EngramClient } from "../../src/ui/client/mcp";
import { freshContext, workerFetch } from "../helpers/clients";
import { ADMIN, BASE, api, bearer, createContext, mint, secured } from "../helpers/teams";

const local = new EngramClient({ base: "http://127.0.0.1:8787", fetch: workerFetch() });
const stats = (ctx: string, query = "", f = workerFetch(), headers: Record<string, string> = {}) =>
  f(`http://127.0.0.1:8787/api/contexts/${ctx}/stats${query}`, { headers });

interface Stats {
  context: { name: string; readOnly: boolean; role: string; capacity: unknown; description: string };
  counts: Record<string, number>;
  search: { mode: string; queued: number };
  entities?: EntityAccessStats[];
  notFound?: string[];
}

describe("GET /api/contexts/:name/stats (the web page's overview)", () => {
  it("counts entities, relations, observations, files, documents and changes, with the database size", async () => {
    const ctx = freshContext("ui-stats");
    await local.callTool(ctx, "create_entities", {
      entities: [
        { name: "A", entityType: "t", observations: ["one", "two"] },
        { name: "B", entityType: "t", observations: [] },
      ],
    });
    await local.callTool(ctx, "create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] });
    await local.callTool(ctx, "create", { path: "notes/x.md", file_text: "x" });
    const res = await stats(ctx);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Stats;
    expect(body.counts).toMatchObject({ entities: 2, relations: 1, observations: 2, files: 1 });
    // Changes as memory_history lists them (which writes are recorded is history's business, not this route's).
    const h = await local.call<{ changes: { seq: number }[] }>(ctx, "memory_history", { limit: 200 });
    expect(h.changes.length).toBeGreaterThanOrEqual(2);
    expect(body.counts).toMatchObject({ changes: h.changes.length, lastChange: h.changes[0]?.seq });
    expect(body.counts.bytes).toBeGreaterThan(0);
    expect(body.context).toMatchObject({ name: ctx, readOnly: false, role: "admin", capacity: null });
    // The test deployment has no AI binding: the context searches by words alone.
    expect(body.search).toMatchObject({ mode: "lexical", queued: 0 });
  });

  it("gives an entity's access statistics, which looking at them does not change", async () => {
    const ctx = freshContext("ui-stats");
    await local.callTool(ctx, "create_entities", { entities: [{ name: "Alice", entityType: "person", observations: [] }] });
    const before = (await (await stats(ctx, "?entity=Alice&entity=Nobody")).json()) as Stats;
    expect(before.entities).toEqual([
      expect.objectContaining({ name: "Alice", entityType: "person", accessCount: 0, openedCount: 0, searchCount: 0, lastAccessedAt: null }),
    ]);
    expect(before.notFound).toEqual(["Nobody"]);
    await local.callTool(ctx, "open_nodes", { names: ["Alice"] });
    await local.callTool(ctx, "open_nodes", { names: ["Alice"] });
    const after = (await (await stats(ctx, "?entity=Alice")).json()) as Stats;
    const again = (await (await stats(ctx, "?entity=Alice")).json()) as Stats;
    expect(after.entities?.[0]?.accessCount).toBe(2);
    expect(after.entities?.[0]?.lastAccessedAt).toBeTypeOf("number");
    expect(again.entities).toEqual(after.entities);
  });

  it("tells opening an entity apart from finding it in search results", async () => {
    const ctx = freshContext("ui-stats");
    await local.callTool(ctx, "create_entities", { entities: [{ name: "Alice", entityType: "person", observations: ["likes tea"] }] });
    for (let i = 0; i < 3; i++) await local.callTool(ctx, "search_nodes", { query: "tea" });
    await local.callTool(ctx, "open_nodes", { names: ["Alice"] });
    await local.callTool(ctx, "open_nodes", { names: ["Alice"] });
    const body = (await (await stats(ctx, "?entity=Alice")).json()) as Stats;
    expect(body.entities?.[0]).toMatchObject({ accessCount: 5, openedCount: 2, searchCount: 3 });
  });

  it("splits retrievals from the two columns the access hook keeps, within range for rows from before the weights", () => {
    expect(openedCount(5, 2 + 3 * 0.25)).toBe(2);
    expect(openedCount(7, 7)).toBe(7);
    expect(openedCount(4, 1)).toBe(0);
    // An undo of a row recorded before the priority columns restores its count but no uses.
    expect(openedCount(3, 0)).toBe(0);
    expect(openedCount(0, 0)).toBe(0);
  });

  it("rejects too many or oversized entity names, naming the limit", async () => {
    const many = Array.from({ length: 51 }, (_, i) => `entity=e${i}`).join("&");
    const tooMany = await stats("default", `?${many}`);
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { message: string }).message).toContain("at most 50");
    const long = await stats("default", `?entity=${"x".repeat(257)}`);
    expect(long.status).toBe(400);
    expect(((await long.json()) as { message: string }).message).toContain("1-256 characters");
  });

  it("needs a grant on the context: 401 without a token, 403 without a grant, 200 with a read grant", async () => {
    const ctx = freshContext("ui-stats");
    await createContext(ctx, { readOnly: true, description: "frozen" });
    const reader = await mint([{ context: ctx, role: "read" }]);
    const stranger = await mint([{ context: "elsewhere", role: "write" }]);
    expect((await secured(`${BASE}/api/contexts/${ctx}/stats`)).status).toBe(401);
    expect((await secured(`${BASE}/api/contexts/${ctx}/stats`, { headers: bearer(stranger.token) })).status).toBe(403);
    const ok = await secured(`${BASE}/api/contexts/${ctx}/stats`, { headers: bearer(reader.token) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Stats).context).toMatchObject({ readOnly: true, role: "read", description: "frozen" });
    expect((await api(`/contexts/${ctx}/stats`, {}, ADMIN)).status).toBe(200);
  });

  it("refuses a browser request from a foreign Origin, like MCP", async () => {
    const res = await stats("default", "", workerFetch(), { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
  });
});
