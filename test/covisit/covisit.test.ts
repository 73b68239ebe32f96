/**
 * Co-visitation end to end, through both MCP clients: what a session is,
 * what counts, how recommendations rank, and that renames, deletes and bad
 * rows never lead an agent astray.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { settings } from "../../src/settings";
import { CLIENTS, connectV1, freshContext, json, text, workerFetch, type ConnectOptions, type TestClient, type ToolResult } from "../helpers/clients";
import { ADMIN, api, BASE, bearer, createContext, mint, secured } from "../helpers/teams";

type Related = { item: string; count: number }[];
const related = (r: ToolResult): Related => (r.structuredContent as { related?: Related }).related ?? [];
const stub = (ctx: string) => env.MEMORY.getByName(ctx) as DurableObjectStub<MemoryContext>;

/** Sets the context object's clock; returns a function that moves it forward. */
async function controlClock(ctx: string): Promise<(minutes: number) => Promise<void>> {
  let t = Date.now();
  await runInDurableObject(stub(ctx), (instance: MemoryContext) => {
    instance.now = () => t;
  });
  return async (minutes) => {
    t += minutes * 60_000;
  };
}

afterEach(() => vi.restoreAllMocks());

describe.each(CLIENTS)("co-visitation (%s)", (_label, connect) => {
  let ctx = "";
  const as = (key: string, headers: Record<string, string> = { "Mcp-Memory-Session": key }) =>
    connect({ url: `http://localhost/mcp/${ctx}`, headers } satisfies ConnectOptions);

  /** One session (one key) doing `steps` and closing. */
  async function session(key: string, steps: (c: TestClient) => Promise<unknown>) {
    const c = await as(key);
    await steps(c);
    await c.close();
  }

  /** Creates each file in a session of its own, so seeding relates nothing. */
  async function seed(...paths: string[]) {
    for (const path of paths) await session(`seed:${path}`, (c) => c.call("create", { path, file_text: `# ${path}\n` }));
  }

  const views =
    (...paths: string[]) =>
    async (c: TestClient) => {
      for (const path of paths) await c.call("view", { path });
    };

  async function relatedOf(path: string, key = `probe-${Math.random()}`) {
    const c = await as(key);
    const r = await c.call("view", { path });
    await c.close();
    return r;
  }

  it("tells a new session viewing a that b was viewed with it once", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md");
    await session("A", views("a.md", "b.md"));
    const r = await relatedOf("a.md");
    expect(related(r)).toEqual([{ item: "file:b.md", count: 1 }]);
    expect(r.content[1]?.text).toBe("🧠 RELATED FILES (Associative Memory)\n  [1] b.md (co-visited 1x)");
    expect(r.content[2]?.text).toBe(`[context: ${ctx}]`);
  });

  it("counts once per session and ranks by count, then path", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md", "c.md", "d.md", "m.md", "x.md", "y.md");
    await session("s1", views("a.md", "b.md", "c.md", "d.md", "a.md", "b.md"));
    await session("s2", views("a.md", "b.md", "d.md"));
    await session("s3", views("a.md", "b.md"));
    const r = await relatedOf("a.md");
    expect(related(r)).toEqual([
      { item: "file:b.md", count: 3 },
      { item: "file:d.md", count: 2 },
      { item: "file:c.md", count: 1 },
    ]);
    expect(text(r)).toContain("  [1] b.md (co-visited 3x)\n  [2] d.md (co-visited 2x)\n  [3] c.md (co-visited 1x)");
    await session("s4", views("m.md", "y.md"));
    await session("s5", views("m.md", "x.md"));
    expect(related(await relatedOf("m.md"))).toEqual([
      { item: "file:x.md", count: 1 },
      { item: "file:y.md", count: 1 },
    ]);
  });

  it("relates a write to what the session viewed before it", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md", "d.md");
    await session("w", async (c) => {
      await views("a.md", "b.md")(c);
      await c.call("create", { path: "c.md", file_text: "new" });
      await c.call("insert", { path: "d.md", insert_line: 0, insert_text: "edited" });
    });
    expect(related(await relatedOf("c.md"))).toEqual([
      { item: "file:a.md", count: 1 },
      { item: "file:b.md", count: 1 },
      { item: "file:d.md", count: 1 },
    ]);
  });

  it("relates entities and files across kinds, keeping open_nodes' official shape", async () => {
    ctx = freshContext("cov");
    await seed("a.md");
    await session("seed:entity", (c) => c.call("create_entities", { entities: [{ name: "oauth-token-handling", entityType: "topic", observations: ["x"] }] }));
    await session("s1", async (c) => {
      await c.call("open_nodes", { names: ["oauth-token-handling"] });
      await c.call("view", { path: "a.md" });
    });
    const v = await relatedOf("a.md");
    expect(related(v)).toEqual([{ item: "entity:oauth-token-handling", count: 1 }]);
    expect(text(v)).toContain("[1] entity:oauth-token-handling (co-visited 1x)");
    const c = await as("s2");
    const o = await c.call("open_nodes", { names: ["oauth-token-handling"] });
    await c.close();
    expect(json(o)).toEqual({ entities: [{ name: "oauth-token-handling", entityType: "topic", observations: ["x"] }], relations: [] });
    expect(related(o)).toEqual([{ item: "file:a.md", count: 1 }]);
    expect(o.content[1]?.text).toContain("[1] a.md (co-visited 1x)");
  });

  it("lists at most MEMORY_COVIS_MAX_RECOMMENDATIONS items, 3 by default, none when it is 0", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md", "c.md", "d.md", "e.md");
    await session("s1", views("a.md", "b.md", "c.md", "d.md", "e.md"));
    expect(related(await relatedOf("a.md"))).toHaveLength(3);
    const setLimit = (n: number) =>
      runInDurableObject(stub(ctx), (instance: MemoryContext) => {
        instance.config = () => ({ ...settings(env), MEMORY_COVIS_MAX_RECOMMENDATIONS: n });
      });
    await setLimit(1);
    expect(related(await relatedOf("a.md"))).toEqual([{ item: "file:b.md", count: 1 }]);
    await setLimit(0);
    const none = await relatedOf("a.md");
    expect(related(none)).toEqual([]);
    expect(text(none)).not.toContain("RELATED FILES");
  });

  it("carries counts over when a file or directory is renamed", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md", "dir/x.md");
    await session("s1", views("a.md", "b.md", "dir/x.md"));
    await session("r", async (c) => {
      await c.call("rename", { old_path: "a.md", new_path: "renamed/a2.md" });
      await c.call("rename", { old_path: "dir", new_path: "dir2" });
    });
    expect(related(await relatedOf("b.md"))).toEqual([
      { item: "file:dir2/x.md", count: 1 },
      { item: "file:renamed/a2.md", count: 1 },
    ]);
    expect(related(await relatedOf("renamed/a2.md"))).toEqual([
      { item: "file:b.md", count: 1 },
      { item: "file:dir2/x.md", count: 1 },
    ]);
  });

  it("never recommends a deleted file or entity, even once the path exists again", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md", "c.md");
    await session("seed:entity", (c) => c.call("create_entities", { entities: [{ name: "gone", entityType: "t", observations: [] }] }));
    await session("s1", async (c) => {
      await views("a.md", "b.md", "c.md")(c);
      await c.call("open_nodes", { names: ["gone"] });
    });
    await session("d", async (c) => {
      await c.call("delete", { path: "b.md" });
      await c.call("delete_entities", { entityNames: ["gone"] });
    });
    expect(related(await relatedOf("a.md"))).toEqual([{ item: "file:c.md", count: 1 }]);
    await seed("b.md");
    expect(related(await relatedOf("a.md"))).toEqual([{ item: "file:c.md", count: 1 }]);
  });

  it("joins calls from separate connections that send the same Mcp-Memory-Session", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md", "c.md", "d.md");
    await session("same", views("a.md"));
    await session("same", views("b.md"));
    await session("one", views("c.md"));
    await session("two", views("d.md"));
    expect(related(await relatedOf("a.md"))).toEqual([{ item: "file:b.md", count: 1 }]);
    expect(related(await relatedOf("c.md"))).toEqual([]);
  });

  it("uses a 2025-era Mcp-Session-Id as the session when there is no Mcp-Memory-Session", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md", "c.md");
    for (const [sid, path] of [
      ["sid-1", "a.md"],
      ["sid-1", "b.md"],
      ["sid-2", "c.md"],
    ] as const) {
      const c = await as(sid, { "Mcp-Session-Id": sid });
      await c.call("view", { path });
      await c.close();
    }
    expect(related(await relatedOf("a.md"))).toEqual([{ item: "file:b.md", count: 1 }]);
  });

  it("without a key, ends a client's session after COVIS_SESSION_IDLE_MINUTES idle", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md", "c.md", "d.md");
    const advance = await controlClock(ctx);
    const c = await as("", {});
    await c.call("view", { path: "a.md" });
    await advance(29);
    await c.call("view", { path: "b.md" }); // 29 idle minutes: same session
    await advance(31);
    await c.call("view", { path: "c.md" }); // 31 idle minutes: a new session
    await advance(1);
    await c.call("view", { path: "d.md" });
    await c.close();
    expect(related(await relatedOf("a.md"))).toEqual([{ item: "file:b.md", count: 1 }]);
    expect(related(await relatedOf("c.md"))).toEqual([{ item: "file:d.md", count: 1 }]);
  });

  it("skips and logs a corrupted association row; the view still succeeds", async () => {
    ctx = freshContext("cov");
    await seed("a.md", "b.md");
    await session("s1", views("a.md", "b.md"));
    await runInDurableObject(stub(ctx), (_i: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const bad: [string, number][] = [
        ["no-kind-here", 50],
        ["weird:thing", 40],
        ["file:zero.md", 0],
        ["file:a.md", 30],
        ["file:gone.md", 20],
      ];
      for (const [other, count] of bad) {
        db.run("INSERT INTO covisit_pairs (item, other, count, updated_at) VALUES ('file:a.md', ?, ?, 0)", other, count);
      }
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const r = await relatedOf("a.md");
    expect(r.isError).toBeFalsy();
    expect(related(r)).toEqual([{ item: "file:b.md", count: 1 }]);
    const reasons = logged.mock.calls.map((args) => String(args[0])).filter((line) => line.includes("covisit_bad_row"));
    const loggedReasons = reasons.flatMap((line) => (JSON.parse(line) as { reasons: string[] }).reasons).sort();
    expect(loggedReasons).toEqual(["count is not a positive integer", "item paired with itself", "malformed item key", 'unknown item kind "weird"']);
  });

  it("answers a view even when the association index itself fails", async () => {
    ctx = freshContext("cov");
    await seed("a.md");
    await runInDurableObject(stub(ctx), (_i: MemoryContext, state) => {
      state.storage.sql.exec("DROP TABLE covisit_pairs");
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const r = await relatedOf("a.md");
    expect(r.isError).toBeFalsy();
    expect(r.content[0]?.text).toBe("   1: # a.md");
    expect(related(r)).toEqual([]);
    expect(logged.mock.calls.some((args) => String(args[0]).includes("covisit_failed"))).toBe(true);
  });
});

describe("session headers", () => {
  it("rejects a session key over 256 characters with a 400 naming the header", async () => {
    const res = await workerFetch()("http://localhost/mcp", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Memory-Session": "k".repeat(257) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Mcp-Memory-Session must be 1-256 characters");
  });
});

describe("sessions without a key (2025-era client, named by User-Agent)", () => {
  it("keeps two clients of one caller apart", async () => {
    const ctx = freshContext("cov");
    const url = `http://localhost/mcp/${ctx}`;
    const as = (agent: string) => connectV1({ url, headers: { "User-Agent": agent } });
    for (const path of ["a.md", "b.md", "c.md"]) {
      const seeder = await connectV1({ url, headers: { "Mcp-Memory-Session": `seed-${path}` } });
      await seeder.call("create", { path, file_text: "x" });
      await seeder.close();
    }
    const probe = async () => {
      const c = await connectV1({ url, headers: { "Mcp-Memory-Session": `probe-${Math.random()}` } });
      const r = related(await c.call("view", { path: "a.md" }));
      await c.close();
      return r;
    };
    const one = await as("agent-one/1.0");
    const two = await as("agent-two/1.0");
    await one.call("view", { path: "a.md" });
    await two.call("view", { path: "b.md" });
    expect(await probe()).toEqual([]);
    await one.call("view", { path: "c.md" });
    expect(await probe()).toEqual([{ item: "file:c.md", count: 1 }]);
    for (const c of [one, two]) await c.close();
  });
});

describe("sessions of two tokens with the same name", () => {
  it("keeps a revoked token's session apart from a new token given its name", async () => {
    const ctx = freshContext("cov");
    await createContext(ctx);
    const name = freshContext("alice");
    const grants = [{ context: ctx, role: "write" as const }];
    const keyed = (token: string, key: string) => connectV1({ url: `${BASE}/mcp/${ctx}`, fetch: secured, headers: { ...bearer(token), "Mcp-Memory-Session": key } });
    // One session per file, so seeding pairs nothing.
    for (const path of ["a.md", "b.md", "c.md"]) {
      const seeder = await keyed(ADMIN, `seed-${path}`);
      await seeder.call("create", { path, file_text: "x" });
      await seeder.close();
    }
    const probe = async (path: string) => {
      const c = await keyed(ADMIN, `probe-${Math.random()}`);
      const r = related(await c.call("view", { path }));
      await c.close();
      return r;
    };

    const first = await mint(grants, name);
    const one = await keyed(first.token, "shared");
    await one.call("view", { path: "a.md" });
    await one.close();
    expect((await api(`/tokens/${first.id}`, { method: "DELETE" })).status).toBe(200);

    const second = await mint(grants, name);
    expect(second.id).not.toBe(first.id);
    const two = await keyed(second.token, "shared");
    await two.call("view", { path: "b.md" });
    await two.call("view", { path: "c.md" });
    await two.close();

    // The second token's own session pairs its items; nothing of the first token's joins it.
    expect(await probe("b.md")).toEqual([{ item: "file:c.md", count: 1 }]);
    expect(await probe("a.md")).toEqual([]);
  });
});
