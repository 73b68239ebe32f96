import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, json, text } from "../helpers/clients";
import { ADMIN, api, bearer, connectAs, createContext, initialize, mint } from "../helpers/teams";

const entity = (name: string) => ({ entities: [{ name, entityType: "t", observations: ["o"] }] });

describe.each(CLIENTS)("authorization with %s client", (_label, connect) => {
  describe("pinned URL /mcp/<context>", () => {
    it("refuses a token without a grant on the context with 403 before MCP starts", async () => {
      const ctx = freshContext("team");
      await createContext(ctx);
      const t = await mint([{ context: "other-*", role: "admin" }]);
      const res = await initialize(`/mcp/${ctx}`, bearer(t.token));
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        error: "forbidden",
        message: `You have no grant for context "${ctx}" (your grants: other-*=admin). Connect to /mcp/<context> for a context your grants cover, or to /mcp.`,
      });
      await expect(connectAs(connect, t.token, `/mcp/${ctx}`)).rejects.toThrow();
    });

    it("lets a read grant read and refuses its writes with a tool error; write and admin grants write", async () => {
      const ctx = freshContext("team");
      await createContext(ctx);
      const reader = await connectAs(connect, (await mint([{ context: ctx, role: "read" }])).token, `/mcp/${ctx}`);
      const writer = await connectAs(connect, (await mint([{ context: ctx, role: "write" }])).token, `/mcp/${ctx}`);
      const admin = await connectAs(connect, (await mint([{ context: ctx, role: "admin" }])).token, `/mcp/${ctx}`);

      const denied = await reader.call("create_entities", entity("r"));
      expect(denied.isError).toBe(true);
      expect(text(denied)).toContain("Forbidden");
      expect(text(denied)).toContain("read-only");

      expect((await writer.call("create_entities", entity("w"))).isError).toBeFalsy();
      expect((await admin.call("create_entities", entity("a"))).isError).toBeFalsy();

      const read = await reader.call("read_graph");
      expect(read.isError).toBeFalsy();
      expect((json(read) as { entities: { name: string }[] }).entities.map((e) => e.name).sort()).toEqual(["a", "w"]);
      expect(text(read)).toContain(`[context: ${ctx}]`);
      for (const c of [reader, writer, admin]) await c.close();
    });
  });

  describe("context argument on /mcp", () => {
    it("answers a context without a grant with a tool error, not an HTTP error", async () => {
      const mine = freshContext("team");
      const theirs = freshContext("secret");
      await createContext(mine);
      await createContext(theirs);
      const client = await connectAs(connect, (await mint([{ context: "team-*", role: "write" }])).token);
      for (const tool of ["read_graph", "create_entities"]) {
        const r = await client.call(tool, tool === "read_graph" ? { context: theirs } : { ...entity("x"), context: theirs });
        expect(r.isError, tool).toBe(true);
        expect(text(r)).toContain("Forbidden");
        expect(text(r)).toContain(`no grant for context "${theirs}"`);
      }
      expect((await client.call("create_entities", { ...entity("x"), context: mine })).isError).toBeFalsy();
      await client.close();
    });

    it("applies read, write and admin roles to the named context", async () => {
      const ctx = freshContext("team");
      const owned = freshContext("team");
      const other = freshContext("team");
      for (const c of [ctx, owned, other]) await createContext(c);
      const t = await mint([
        { context: "*", role: "read" },
        { context: ctx, role: "write" },
        { context: owned, role: "admin" },
      ]);
      const client = await connectAs(connect, t.token);
      expect((await client.call("create_entities", { ...entity("x"), context: ctx })).isError).toBeFalsy();
      expect((await client.call("create_entities", { ...entity("x"), context: owned })).isError).toBeFalsy();
      const r = await client.call("create_entities", { ...entity("x"), context: other });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("read-only");
      expect((await client.call("read_graph", { context: other })).isError).toBeFalsy();
      // Only the admin grant may unregister.
      expect((await client.call("remove_context", { name: ctx })).isError).toBe(true);
      expect((await client.call("remove_context", { name: owned })).isError).toBeFalsy();
      await client.close();
    });
  });

  describe("active context", () => {
    it("acts on the caller's active context with that context's role", async () => {
      const readable = freshContext("team");
      const writable = freshContext("team");
      await createContext(readable);
      await createContext(writable);
      const t = await mint([
        { context: readable, role: "read" },
        { context: writable, role: "write" },
      ]);
      const client = await connectAs(connect, t.token);
      expect((await client.call("set_active_context", { name: writable })).isError).toBeFalsy();
      const wrote = await client.call("create_entities", entity("here"));
      expect(wrote.isError).toBeFalsy();
      expect(text(wrote)).toContain(`[context: ${writable}]`);

      expect((await client.call("set_active_context", { name: readable })).isError).toBeFalsy();
      const refused = await client.call("create_entities", entity("there"));
      expect(refused.isError).toBe(true);
      expect(text(refused)).toContain("read-only");
      expect((await client.call("read_graph")).isError).toBeFalsy();
      await client.close();
    });

    it("refuses a token whose active context falls back to a default it has no grant for", async () => {
      const t = await mint([{ context: "team-*", role: "write" }]);
      const client = await connectAs(connect, t.token);
      const r = await client.call("read_graph");
      expect(r.isError).toBe(true);
      expect(text(r)).toContain('no grant for context "default"');
      await client.close();
    });

    it("names the caller's grants, a few at most, and how to pick a context when refusing one it has no grant for", async () => {
      const pick =
        "Name a context your grants cover in a tool's `context` argument, or make it your active context with set_active_context; list_contexts shows them.";
      const payments = await connectAs(connect, (await mint([{ context: "payments", role: "read" }])).token);
      const r = await payments.call("search_nodes", { query: "invoice" });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(`Error (Forbidden): You have no grant for context "default" (your grants: payments=read). ${pick}`);
      const many = await connectAs(
        connect,
        (
          await mint([
            { context: "a", role: "read" },
            { context: "b-*", role: "write", create: true },
            { context: "c", role: "admin" },
            { context: "d", role: "read" },
            { context: "e", role: "read" },
          ])
        ).token,
      );
      expect(text(await many.call("read_graph"))).toContain("(your grants: a=read, b-*=write+create, c=admin and 2 more). Name a context");
      for (const c of [payments, many]) await c.close();
    });
  });

  describe("globs", () => {
    it("grants team-* to every team-... context and nothing else; * grants everything", async () => {
      const a = freshContext("team");
      const b = freshContext("team");
      const outside = freshContext("ops");
      for (const c of [a, b, outside]) await createContext(c);
      const team = await connectAs(connect, (await mint([{ context: "team-*", role: "write" }])).token);
      for (const c of [a, b]) expect((await team.call("create_entities", { ...entity("x"), context: c })).isError, c).toBeFalsy();
      expect((await team.call("read_graph", { context: outside })).isError).toBe(true);
      const all = await connectAs(connect, (await mint([{ context: "*", role: "read" }])).token);
      for (const c of [a, b, outside]) expect((await all.call("read_graph", { context: c })).isError, c).toBeFalsy();
      await team.close();
      await all.close();
    });
  });

  describe("read-only contexts", () => {
    // Valid arguments for every graph write tool, so each one reaches the context resolver.
    const WRITES: Record<string, Record<string, unknown>> = {
      create_entities: entity("new"),
      create_relations: { relations: [{ from: "kept", to: "kept", relationType: "self" }] },
      add_observations: { observations: [{ entityName: "kept", contents: ["more"] }] },
      delete_entities: { entityNames: ["kept"] },
      delete_observations: { deletions: [{ entityName: "kept", observations: ["o"] }] },
      delete_relations: { relations: [{ from: "kept", to: "kept", relationType: "self" }] },
    };

    it("refuses every write tool with a clear error, for writers and the administrator alike, writes nothing, and serves reads", async () => {
      const ctx = freshContext("team");
      await createContext(ctx);
      const admin = await connectAs(connect, ADMIN, `/mcp/${ctx}`);
      expect((await admin.call("create_entities", entity("kept"))).isError).toBeFalsy();
      expect((await api(`/contexts/${ctx}`, { method: "PATCH", json: { readOnly: true } })).status).toBe(200);

      const writer = await connectAs(connect, (await mint([{ context: ctx, role: "write" }])).token, `/mcp/${ctx}`);
      const listed = (await writer.listTools()).filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name);
      expect(listed).toEqual(expect.arrayContaining(Object.keys(WRITES)));
      for (const c of [writer, admin]) {
        for (const [tool, args] of Object.entries(WRITES)) {
          const r = await c.call(tool, args);
          expect(r.isError, tool).toBe(true);
          expect(text(r), tool).toContain(`Context "${ctx}" is read-only`);
        }
        const r = await c.call("open_nodes", { names: ["kept"] });
        expect(r.isError).toBeFalsy();
        expect(json(r)).toEqual({ entities: [{ name: "kept", entityType: "t", observations: ["o"] }], relations: [] });
      }
      for (const c of [writer, admin]) await c.close();
    });

    it("is refused the same way for a token holding only a read grant on a writable context", async () => {
      const ctx = freshContext("team");
      await createContext(ctx);
      const reader = await connectAs(connect, (await mint([{ context: ctx, role: "read" }])).token, `/mcp/${ctx}`);
      for (const [tool, args] of Object.entries(WRITES)) {
        const r = await reader.call(tool, args);
        expect(r.isError, tool).toBe(true);
        expect(text(r), tool).toContain("read-only");
      }
      await reader.close();
    });
  });

  describe("creating contexts on first use", () => {
    it("creates a missing context matching a create grant on its first use, and only then", async () => {
      const t = await mint([
        { context: "proj-*", role: "write", create: true },
        { context: "team-*", role: "write" },
      ]);
      const proj = freshContext("proj");
      const client = await connectAs(connect, t.token, `/mcp/${proj}`);
      // A read does not create it, even under a create grant.
      const read = await client.call("read_graph");
      expect(read.isError).toBe(true);
      expect(text(read)).toContain(`Context "${proj}" does not exist`);
      expect((json(await client.call("list_contexts")) as { contexts: { name: string }[] }).contexts.map((c) => c.name)).not.toContain(proj);
      expect((await client.call("create_entities", entity("first"))).isError).toBeFalsy();
      const list = json(await client.call("list_contexts")) as { contexts: { name: string }[] };
      expect(list.contexts.map((c) => c.name)).toContain(proj);
      await client.close();

      const team = freshContext("team");
      const other = await connectAs(connect, t.token);
      const r = await other.call("read_graph", { context: team });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("NotFound");
      expect(text(r)).toContain(`Context "${team}" does not exist`);
      const w = await other.call("create_entities", { ...entity("x"), context: team });
      expect(w.isError).toBe(true);
      expect(text(w)).toContain(`Context "${team}" does not exist`);
      await other.close();
    });
  });
});
