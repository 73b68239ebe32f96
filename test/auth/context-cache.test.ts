/**
 * The isolate's cache of registered contexts (src/auth/cache.ts): a call on
 * a context seen in the last TOKEN_CACHE_SECONDS needs no Registry call; a
 * removal elsewhere reaches reads within that bound; the context's object
 * refuses writes itself (src/context/registration.ts), so a read-only flag, a
 * removal or a purge binds them at once whatever the cache holds, and a
 * purged object refuses every call until registered again.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { contextCache } from "../../src/auth/cache";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { registryOf } from "../../src/registry/Registry";
import { connectV2, freshContext, text } from "../helpers/clients";
import { api, connectAs, createContext, mint } from "../helpers/teams";

afterEach(() => {
  contextCache.now = Date.now;
  contextCache.clear();
});

const BOUND_MS = 30_000; // TOKEN_CACHE_SECONDS' default

/** A context with one entity, and a client on its pinned URL for a token that may read and write it but not create it. */
async function setup() {
  const name = freshContext("cc");
  await createContext(name);
  const t = await mint([{ context: name, role: "write" }]);
  const client = await connectAs(connectV2, t.token, `/mcp/${name}`);
  const created = await client.call("create_entities", { entities: [{ name: "alpha", entityType: "t", observations: ["first"] }] });
  expect(created.isError).toBeFalsy();
  return { name, client };
}

const rows = (name: string) =>
  runInDurableObject(env.MEMORY.getByName(name) as DurableObjectStub<MemoryContext>, (_i: MemoryContext, state) => {
    const db = new Db(state.storage.sql);
    return db.one<{ n: number }>("SELECT COUNT(*) AS n FROM entities")?.n ?? 0;
  });

describe("context cache", () => {
  it("serves reads of a context removed elsewhere until the bound passes, and refuses its writes at once", async () => {
    let now = 1_000_000;
    contextCache.now = () => now;
    const { name, client } = await setup();
    expect((await client.call("search_nodes", { query: "alpha" })).isError).toBeFalsy();
    // Another isolate removes it: this isolate's cache does not hear about it.
    expect((await registryOf(env).removeContext(name, "test", "test")).ok).toBe(true);
    const write = await client.call("add_observations", { observations: [{ entityName: "alpha", contents: ["late"] }] });
    expect(write.isError).toBe(true);
    expect(text(write)).toContain("was removed");
    now += BOUND_MS - 1;
    expect((await client.call("open_nodes", { names: ["alpha"] })).isError).toBeFalsy();
    now += 1;
    const read = await client.call("search_nodes", { query: "alpha" });
    expect(read.isError).toBe(true);
    expect(text(read)).toContain("was removed");
    await client.close();
  });

  it("refuses writes at once when a context is made read-only elsewhere", async () => {
    const { name, client } = await setup();
    expect((await client.call("read_graph", { limit: 1, mode: "summary" })).isError).toBeFalsy();
    expect((await registryOf(env).updateContext(name, { readOnly: true }, "test")).ok).toBe(true);
    const write = await client.call("create_entities", { entities: [{ name: "beta", entityType: "t", observations: [] }] });
    expect(write.isError).toBe(true);
    expect(text(write)).toContain("read-only");
    await client.close();
  });

  it("lets writes in at once when the read-only flag is lifted elsewhere", async () => {
    const name = freshContext("cc");
    await createContext(name, { readOnly: true });
    const t = await mint([{ context: name, role: "write" }]);
    const client = await connectAs(connectV2, t.token, `/mcp/${name}`);
    // This isolate caches the context as read-only.
    expect((await client.call("read_graph", { limit: 1, mode: "summary" })).isError).toBeFalsy();
    const refused = await client.call("create_entities", { entities: [{ name: "beta", entityType: "t", observations: [] }] });
    expect(text(refused)).toContain("read-only");
    expect((await registryOf(env).updateContext(name, { readOnly: false }, "test")).ok).toBe(true);
    const written = await client.call("create_entities", { entities: [{ name: "beta", entityType: "t", observations: [] }] });
    expect(written.isError, text(written)).toBeFalsy();
    await client.close();
  });

  it("never lets a write land in an object purged elsewhere while calls were cached, and refuses cached reads too", async () => {
    const { name, client } = await setup();
    expect((await client.call("search_nodes", { query: "alpha" })).isError).toBeFalsy();
    // A purge in another isolate, as the purge route asks the Registry for it, without touching this isolate's cache.
    expect(await registryOf(env).purgeContext(name, "test")).toEqual({ ok: true, value: { wasRegistered: true } });
    const write = await client.call("create_entities", { entities: [{ name: "ghost", entityType: "t", observations: ["after purge"] }] });
    expect(write.isError).toBe(true);
    expect(text(write)).toContain("does not exist");
    const read = await client.call("search_nodes", { query: "alpha ghost" });
    expect(read.isError).toBe(true);
    expect(text(read)).toContain("was purged");
    expect(await rows(name)).toBe(0);
    await client.close();
  });

  it("stops serving reads at once in the isolate that removed or purged the context", async () => {
    const removedHere = await setup();
    const admin = await connectAs(connectV2, (await mint([{ context: removedHere.name, role: "admin" }])).token);
    expect((await removedHere.client.call("read_graph", { limit: 1, mode: "summary" })).isError).toBeFalsy();
    expect((await admin.call("remove_context", { name: removedHere.name })).isError).toBeFalsy();
    expect((await removedHere.client.call("read_graph", { limit: 1, mode: "summary" })).isError).toBe(true);

    const purgedHere = await setup();
    expect((await purgedHere.client.call("read_graph", { limit: 1, mode: "summary" })).isError).toBeFalsy();
    expect((await api(`/contexts/${purgedHere.name}/purge?confirm=${purgedHere.name}`, { method: "POST" })).status).toBe(200);
    const read = await purgedHere.client.call("read_graph", { limit: 1, mode: "summary" });
    expect(read.isError).toBe(true);
    expect(text(read)).toContain("does not exist");
    await Promise.all([admin.close(), removedHere.client.close(), purgedHere.client.close()]);
  });
});
