/**
 * No deployment-wide object on the hot path. A warm tool
 * call, read or write, pinned or through the active context, makes no
 * Registry call (the Registry counts what it serves); the context's object
 * itself refuses what its registration forbids (src/context/registration.ts).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { registryOf } from "../../src/registry/Registry";
import { connectV2, freshContext, text } from "../helpers/clients";
import { as, stubOf } from "../helpers/context";
import { api, connectAs, createContext, mint } from "../helpers/teams";

const served = () => registryOf(env).callCount();

const entity = (name: string) => ({ entities: [{ name, entityType: "t", observations: ["seen"] }] });

describe("the hot path", () => {
  it("serves warm reads and writes, pinned and through the active context, without a Registry call", async () => {
    const name = freshContext("hot");
    await createContext(name);
    const { token } = await mint([{ context: name, role: "write" }]);
    const pinned = await connectAs(connectV2, token, `/mcp/${name}`);
    const active = await connectAs(connectV2, token);
    expect((await active.call("set_active_context", { name })).isError).toBeFalsy();
    // Warm-up: the isolate learns the token, the context and the active context.
    expect((await pinned.call("create_entities", entity("warm"))).isError).toBeFalsy();
    expect((await active.call("search_nodes", { query: "warm" })).isError).toBeFalsy();

    const before = await served();
    const calls = [
      pinned.call("search_nodes", { query: "warm" }),
      pinned.call("create_entities", entity("pinned")),
      pinned.call("add_observations", { observations: [{ entityName: "pinned", contents: ["more"] }] }),
      active.call("open_nodes", { names: ["warm"] }),
      active.call("create_entities", entity("active")),
      active.call("read_graph", { limit: 5, mode: "summary" }),
    ];
    for (const result of await Promise.all(calls)) expect(result.isError, text(result)).toBeFalsy();
    expect(await served()).toBe(before);

    // The calls went where they should: both writes landed in the context.
    const opened = await pinned.call("open_nodes", { names: ["pinned", "active"] });
    expect(opened.structuredContent?.entities).toHaveLength(2);
    await Promise.all([pinned.close(), active.close()]);
  });

  it("reports the Registry's count to the administrator only, over HTTP, without counting the reading", async () => {
    const read = async (token?: string) => {
      const res = await api("/admin/registry-calls", {}, token);
      return { status: res.status, body: (await res.json()) as { calls?: number; since?: string; message?: string } };
    };
    const first = await read();
    expect(first.status).toBe(200);
    expect(first.body.calls).toBe(await served());
    expect(Date.parse(first.body.since ?? "")).toBeLessThanOrEqual(Date.now());
    await registryOf(env).listContexts(false);
    expect((await read()).body).toEqual({ calls: (first.body.calls ?? 0) + 1, since: first.body.since });

    const { token } = await mint([{ context: "*", role: "admin", create: true }]);
    const refused = await read(token);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("ADMIN_TOKEN");
    expect(refused.body.calls).toBeUndefined();
  });

  it("counts the calls the Registry serves", async () => {
    const before = await served();
    await registryOf(env).listContexts(false);
    await registryOf(env).activeContext("token:nobody");
    expect(await served()).toBe(before + 2);
  });
});

describe("a context's object checks its own registration", () => {
  it("refuses writes once removed or read-only, every call once purged, and opens again when registered", async () => {
    const name = freshContext("gate");
    const stub = stubOf(name);
    const write = () => stub.createEntities([{ name: `e-${Math.random()}`, entityType: "t", observations: [] }], as("alice"));
    expect((await write()).ok).toBe(true); // told nothing yet: admits everything

    await stub.setRegistration({ name, status: "removed" });
    expect(await write()).toMatchObject({ ok: false, kind: "NotFound", message: expect.stringContaining("was removed") });
    expect((await stub.openNodes(["x"], as("alice"))).ok).toBe(true); // reads go on within the Worker's bound

    await stub.setRegistration({ name, status: "registered", readOnly: true });
    expect(await write()).toMatchObject({ ok: false, kind: "Forbidden", message: expect.stringContaining("read-only") });

    await stub.setRegistration({ name, status: "registered", readOnly: false });
    expect((await write()).ok).toBe(true);

    await stub.purge(name);
    expect(await write()).toMatchObject({ ok: false, kind: "NotFound", message: expect.stringContaining("was purged") });
    expect(await stub.searchNodes("e", {}, as("alice"))).toMatchObject({ ok: false, kind: "NotFound" });
    expect(await stub.openNodes(["x"], as("alice"))).toMatchObject({ ok: false, kind: "NotFound" });

    await stub.setRegistration({ name, status: "registered", readOnly: false });
    expect((await write()).ok).toBe(true);
  });

  it("refuses the contexts API's reads of a purged object as it refuses a tool's, and serves them again when registered", async () => {
    const name = freshContext("gate");
    const stub = stubOf(name);
    expect((await stub.createEntities([{ name: "kept", entityType: "t", observations: ["secret"] }], as("alice"))).ok).toBe(true);
    await stub.purge(name);
    const reads = await Promise.all([
      stub.exportPage(undefined, 10),
      stub.exportArchive(0, 10, 10_000),
      stub.exportHistory(0, 10_000),
      stub.overview(),
      stub.entityStats(["kept"]),
      stub.contextStats(["kept"]),
      stub.searchStatus(),
    ]);
    for (const read of reads) expect(read).toMatchObject({ ok: false, kind: "NotFound", message: expect.stringContaining("was purged") });

    await stub.setRegistration({ name, status: "registered", readOnly: false });
    expect(await stub.overview()).toMatchObject({ ok: true, value: { entities: 0 } });
    expect(await stub.exportPage(undefined, 10)).toMatchObject({ ok: true, value: { lines: [] } });
  });

  it("is told by the Registry: a removal refuses the next write through a warm cache, and add_context opens it again", async () => {
    const name = freshContext("told");
    await createContext(name);
    const { token } = await mint([{ context: name, role: "write" }]);
    const client = await connectAs(connectV2, token, `/mcp/${name}`);
    expect((await client.call("create_entities", entity("a"))).isError).toBeFalsy();
    // Another isolate removes it and revives it: this isolate's cache heard of neither.
    expect((await registryOf(env).removeContext(name, "test", "test")).ok).toBe(true);
    const refused = await client.call("create_entities", entity("b"));
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("was removed");
    expect((await registryOf(env).addContext({ name }, "test", "test")).ok).toBe(true);
    expect((await client.call("create_entities", entity("c"))).isError).toBeFalsy();
    await client.close();
  });
});
