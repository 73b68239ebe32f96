import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, json, text } from "../helpers/clients";
import { ADMIN, api, connectAs, createContext, mint } from "../helpers/teams";

const entity = (name: string) => ({ entities: [{ name, entityType: "t", observations: ["o"] }] });
const CONTEXT_TOOLS = ["list_contexts", "get_active_context", "set_active_context", "add_context", "remove_context"];

describe.each(CLIENTS)("context tools with %s client", (_label, connect) => {
  it("lists the five context tools, without a context argument, while every other tool keeps one", async () => {
    const client = await connectAs(connect, ADMIN);
    const tools = await client.listTools();
    for (const t of tools) {
      const props = Object.keys((t.inputSchema as { properties?: object }).properties ?? {});
      expect(props.includes("context"), t.name).toBe(!CONTEXT_TOOLS.includes(t.name));
    }
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(CONTEXT_TOOLS));
    await client.close();
  });

  it("list_contexts shows only the contexts the token has a grant for, with its role", async () => {
    const mine = freshContext("team");
    const readable = freshContext("docs");
    const secret = freshContext("secret");
    for (const c of [mine, readable, secret]) await createContext(c, { description: `about ${c}` });
    const t = await mint([
      { context: "team-*", role: "write" },
      { context: readable, role: "read" },
    ]);
    const client = await connectAs(connect, t.token);
    const r = await client.call("list_contexts");
    expect(r.isError).toBeFalsy();
    const out = json(r) as { contexts: { name: string; role: string; description: string }[]; grants: unknown[] };
    const names = out.contexts.map((c) => c.name);
    expect(names).toContain(mine);
    expect(names).toContain(readable);
    expect(names).not.toContain(secret);
    expect(names.every((n) => n.startsWith("team-") || n === readable)).toBe(true);
    expect(out.contexts.find((c) => c.name === readable)).toEqual({ name: readable, description: `about ${readable}`, readOnly: false, role: "read" });
    expect(out.grants).toEqual([
      { context: "team-*", role: "write" },
      { context: readable, role: "read" },
    ]);
    await client.close();

    const admin = await connectAs(connect, ADMIN);
    const all = (json(await admin.call("list_contexts")) as { contexts: { name: string }[] }).contexts.map((c) => c.name);
    expect(all).toEqual(expect.arrayContaining([mine, readable, secret]));
    await admin.close();
  });

  it("set_active_context confirms the switch, persists it for the caller, and get_active_context reports it", async () => {
    const ctx = freshContext("team");
    await createContext(ctx);
    const t = await mint([{ context: "*", role: "write" }]);
    const first = await connectAs(connect, t.token);
    expect(json(await first.call("get_active_context"))).toEqual({ name: "default", source: "default" });
    const set = await first.call("set_active_context", { name: ctx });
    expect(set.isError).toBeFalsy();
    expect(text(set)).toContain(`Active context is now "${ctx}"`);
    expect(text(set)).toContain(`[context: ${ctx}]`);
    await first.close();

    // A new connection with the same token finds it: the Registry holds it, not the session.
    const second = await connectAs(connect, t.token);
    const got = await second.call("get_active_context");
    expect(json(got)).toEqual({ name: ctx, source: "active" });
    expect(text(got)).toContain(`[context: ${ctx}]`);
    await second.close();

    const pinned = await connectAs(connect, t.token, "/mcp/default");
    expect(json(await pinned.call("get_active_context"))).toEqual({ name: "default", source: "url" });
    const note = await pinned.call("set_active_context", { name: ctx });
    expect(text(note)).toContain('pinned to "default"');
    await pinned.close();
  });

  it("set_active_context refuses an unknown context and one without a grant, and keeps the old one", async () => {
    const ctx = freshContext("team");
    const secret = freshContext("secret");
    await createContext(ctx);
    await createContext(secret);
    const client = await connectAs(connect, (await mint([{ context: "team-*", role: "write" }])).token);
    expect((await client.call("set_active_context", { name: ctx })).isError).toBeFalsy();
    const unknown = await client.call("set_active_context", { name: freshContext("team") });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain("NotFound");
    const forbidden = await client.call("set_active_context", { name: secret });
    expect(forbidden.isError).toBe(true);
    expect(text(forbidden)).toContain(
      `Error (Forbidden): You have no grant for context "${secret}" (your grants: team-*=write). list_contexts shows the contexts you can use.`,
    );
    const bad = await client.call("set_active_context", { name: "Not A Name" });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain("name");
    expect(json(await client.call("get_active_context"))).toEqual({ name: ctx, source: "active" });
    await client.close();
  });

  it("falls back to default, and says so, when the caller's active context was removed", async () => {
    const ctx = freshContext("team");
    await createContext(ctx);
    const client = await connectAs(connect, (await mint([{ context: "*", role: "write" }])).token);
    await client.call("set_active_context", { name: ctx });
    const admin = await connectAs(connect, ADMIN);
    expect((await admin.call("remove_context", { name: ctx })).isError).toBeFalsy();

    const r = await client.call("read_graph", { mode: "summary" });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain("[context: default]");
    expect(text(r)).toContain(`your active context "${ctx}" was removed`);
    const active = json(await client.call("get_active_context")) as { name: string; note?: string };
    expect(active.name).toBe("default");
    expect(active.note).toContain(ctx);
    for (const c of [client, admin]) await c.close();
  });

  it("keeps two callers' active contexts apart while they write at the same time", async () => {
    const a = freshContext("team");
    const b = freshContext("team");
    await createContext(a);
    await createContext(b);
    const alice = await connectAs(connect, (await mint([{ context: "team-*", role: "write" }])).token);
    const bob = await connectAs(connect, (await mint([{ context: "team-*", role: "write" }])).token);
    await Promise.all([alice.call("set_active_context", { name: a }), bob.call("set_active_context", { name: b })]);
    const writes = await Promise.all(
      Array.from({ length: 5 }, (_, i) => [alice.call("create_entities", entity(`alice-${i}`)), bob.call("create_entities", entity(`bob-${i}`))]).flat(),
    );
    for (const w of writes) expect(w.isError).toBeFalsy();
    const names = async (ctx: string) =>
      (json(await alice.call("read_graph", { context: ctx })) as { entities: { name: string }[] }).entities.map((e) => e.name).sort();
    expect(await names(a)).toEqual(["alice-0", "alice-1", "alice-2", "alice-3", "alice-4"]);
    expect(await names(b)).toEqual(["bob-0", "bob-1", "bob-2", "bob-3", "bob-4"]);
    await alice.close();
    await bob.close();
  });

  it("add_context needs an admin or create grant, honours read_only, and refuses a name that exists", async () => {
    const t = await mint([
      { context: "proj-*", role: "write", create: true },
      { context: "team-*", role: "write" },
    ]);
    const client = await connectAs(connect, t.token);
    const proj = freshContext("proj");
    const added = await client.call("add_context", { name: proj, description: "the project", read_only: true });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toEqual({ context: { name: proj, description: "the project", readOnly: true, role: "write" }, revived: false });
    expect(text(added)).toContain(`[context: ${proj}]`);
    const write = await client.call("create_entities", { ...entity("x"), context: proj });
    expect(text(write)).toContain("read-only");

    const again = await client.call("add_context", { name: proj });
    expect(again.isError).toBe(true);
    expect(text(again)).toContain("Conflict");
    const teamName = freshContext("team");
    const team = await client.call("add_context", { name: teamName });
    expect(team.isError).toBe(true);
    // The grant syntax users type (`--grant`), not the API's JSON field.
    expect(text(team)).toContain(
      `Error (Forbidden): Creating context "${teamName}" needs an admin grant or a +create grant matching it, such as ${teamName}=write+create (your grants: proj-*=write+create, team-*=write).`,
    );
    await client.close();
  });

  it("remove_context needs an admin grant, refuses the default context, and keeps the data for a later add_context", async () => {
    const ctx = freshContext("team");
    await createContext(ctx);
    const writer = await connectAs(connect, (await mint([{ context: "team-*", role: "write" }])).token);
    const owner = await connectAs(
      connect,
      (
        await mint([
          { context: "team-*", role: "admin" },
          { context: "default", role: "admin" },
        ])
      ).token,
    );
    expect((await writer.call("create_entities", { ...entity("precious"), context: ctx })).isError).toBeFalsy();

    const denied = await writer.call("remove_context", { name: ctx });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain("Forbidden");
    const noDefault = await owner.call("remove_context", { name: "default" });
    expect(noDefault.isError).toBe(true);
    expect(text(noDefault)).toContain("cannot be removed");

    const removed = await owner.call("remove_context", { name: ctx });
    expect(removed.isError).toBeFalsy();
    expect(removed.structuredContent).toEqual({ name: ctx, removed: true, dataKept: true });
    const gone = await writer.call("read_graph", { context: ctx });
    expect(gone.isError).toBe(true);
    expect(text(gone)).toContain(
      `Error (NotFound): Context "${ctx}" was removed. list_contexts shows the contexts you can use; add_context brings it back with its data.`,
    );
    expect((json(await writer.call("list_contexts")) as { contexts: { name: string }[] }).contexts.map((c) => c.name)).not.toContain(ctx);

    const back = await owner.call("add_context", { name: ctx });
    expect(back.structuredContent).toMatchObject({ revived: true });
    const data = await writer.call("open_nodes", { names: ["precious"], context: ctx });
    expect((json(data) as { entities: unknown[] }).entities).toHaveLength(1);
    for (const c of [writer, owner]) await c.close();
  });

  it("does not revive a removed read-only context for a write it would refuse", async () => {
    const ctx = freshContext("team");
    await createContext(ctx, { readOnly: true });
    // A grant that may create contexts: its first write into a missing or removed one registers it.
    const writer = await connectAs(connect, (await mint([{ context: "team-*", role: "write", create: true }])).token);
    const owner = await connectAs(connect, (await mint([{ context: "team-*", role: "admin" }])).token);
    expect((await owner.call("remove_context", { name: ctx })).isError).toBeFalsy();

    const refused = await writer.call("create_entities", { ...entity("late"), context: ctx });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("was removed and is read-only");
    const still = await writer.call("read_graph", { context: ctx });
    expect(text(still)).toContain("was removed");
    const audit = (await (await api("/audit?limit=50")).json()) as { entries: { action: string; target: string }[] };
    expect(audit.entries.filter((e) => e.target === ctx).map((e) => e.action)).toEqual(["context.remove", "context.create"]);

    const back = await owner.call("add_context", { name: ctx, read_only: false });
    expect(back.structuredContent).toMatchObject({ revived: true });
    expect((await writer.call("create_entities", { ...entity("late"), context: ctx })).isError).toBeFalsy();
    for (const c of [writer, owner]) await c.close();
  });

  it("records context changes made through tools in the audit log with the token's name", async () => {
    const t = await mint([{ context: "proj-*", role: "admin" }], freshContext("auditor"));
    const client = await connectAs(connect, t.token);
    const proj = freshContext("proj");
    await client.call("add_context", { name: proj });
    await client.call("remove_context", { name: proj });
    await client.close();
    const log = (await (await api("/audit?limit=50")).json()) as { entries: { actor: string; action: string; target: string }[] };
    const mine = log.entries.filter((e) => e.target === proj).map((e) => [e.actor, e.action]);
    expect(mine).toEqual([
      [t.name, "context.remove"],
      [t.name, "context.create"],
    ]);
  });

  it("brings a context from before the Registry (foundation data) into the registry by add_context, data intact, and not by a read", async () => {
    const old = freshContext("legacy");
    // Written straight to the MemoryContext, as a foundation deployment did, with no Registry row.
    await env.MEMORY.getByName(old).createEntities([{ name: "kept", entityType: "t", observations: ["from before"] }], {
      caller: "admin",
      callerId: "admin",
      tool: "test",
    });
    const before = (await (await api("/contexts")).json()) as { contexts: { name: string }[] };
    expect(before.contexts.map((c) => c.name)).not.toContain(old);

    const admin = await connectAs(connect, ADMIN);
    const read = await admin.call("open_nodes", { names: ["kept"], context: old });
    expect(read.isError).toBe(true);
    expect(text(read)).toContain("add_context");
    expect((await admin.call("add_context", { name: old })).isError).toBeFalsy();
    const r = await admin.call("open_nodes", { names: ["kept"], context: old });
    expect(json(r)).toEqual({ entities: [{ name: "kept", entityType: "t", observations: ["from before"] }], relations: [] });
    const listed = (json(await admin.call("list_contexts")) as { contexts: { name: string }[] }).contexts.map((c) => c.name);
    expect(listed).toContain(old);
    await admin.close();
  });
});

describe.each(CLIENTS)("reads of an unknown context in open local mode, with %s client", (_label, connect) => {
  const listed = async (client: Awaited<ReturnType<typeof connect>>) =>
    (json(await client.call("list_contexts")) as { contexts: { name: string }[] }).contexts.map((c) => c.name);

  it("answer NotFound naming the context through /mcp/<name> and the context argument, and register nothing", async () => {
    const typo = freshContext("typo");
    const pinned = await connect({ url: `http://127.0.0.1:8787/mcp/${typo}` });
    for (const [tool, args] of [
      ["read_graph", {}],
      ["search_nodes", { query: "anything" }],
      ["open_nodes", { names: ["x"] }],
    ] as const) {
      const r = await pinned.call(tool, args);
      expect(r.isError, tool).toBe(true);
      expect(text(r), tool).toContain(`Context "${typo}" does not exist. list_contexts shows the contexts you can use; add_context creates one.`);
    }
    const plain = await connect({ url: "http://127.0.0.1:8787/mcp" });
    const r = await plain.call("read_graph", { context: typo });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`Context "${typo}" does not exist`);
    expect(await listed(plain)).not.toContain(typo);
    const registry = (await (await SELF.fetch("http://127.0.0.1:8787/api/contexts")).json()) as { contexts: { name: string }[] };
    expect(registry.contexts.map((c) => c.name)).not.toContain(typo);

    // A write is what creates it.
    expect((await pinned.call("create_entities", entity("first"))).isError).toBeFalsy();
    expect(await listed(plain)).toContain(typo);
    await pinned.close();
    await plain.close();
  });

  it("export and stats of an unknown context are 404 naming it, and register nothing; import creates it", async () => {
    const typo = freshContext("typo");
    const base = `http://127.0.0.1:8787/api/contexts/${typo}`;
    for (const path of ["/export", "/stats"]) {
      const res = await SELF.fetch(`${base}${path}`);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { message: string }).message, path).toBe(
        `Context "${typo}" does not exist. list_contexts shows the contexts you can use; add_context creates one.`,
      );
    }
    const client = await connect({ url: "http://127.0.0.1:8787/mcp" });
    expect(await listed(client)).not.toContain(typo);
    const line = JSON.stringify({ type: "entity", name: "imported", entityType: "t", observations: ["o"] });
    const imported = await SELF.fetch(`${base}/import`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body: `${line}\n` });
    expect(imported.status).toBe(200);
    expect(await listed(client)).toContain(typo);
    expect((await SELF.fetch(`${base}/export`)).status).toBe(200);
    await client.close();
  });
});

describe.each(CLIENTS)("the knowledge-graph resource of an unknown context, with %s client", (_label, connect) => {
  it("is an Invalid Params error naming the context, and registers nothing", async () => {
    const typo = freshContext("typo");
    const client = await connect({ url: `http://127.0.0.1:8787/mcp/${typo}` });
    const error = await client.readResource("memory://knowledge-graph").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32602 });
    expect(String((error as Error).message)).toContain(`Context "${typo}" does not exist`);
    const registry = (await (await SELF.fetch("http://127.0.0.1:8787/api/contexts")).json()) as { contexts: { name: string }[] };
    expect(registry.contexts.map((c) => c.name)).not.toContain(typo);
    await client.close();
  });
});
