import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tokenHash } from "../../src/auth/tokens";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { registryOf, type Registry } from "../../src/registry/Registry";
import { connectV2, freshContext, json } from "../helpers/clients";
import { api, connectAs, createContext, ISO_TIME, mint } from "../helpers/teams";

const body = async <T = Record<string, unknown>>(res: Response) => (await res.json()) as T;
const entityLine = (name: string) => JSON.stringify({ type: "entity", name, entityType: "t", observations: ["o"] });

describe("admin API: who may call it", () => {
  it("refuses every admin route to API tokens, even one with admin on *", async () => {
    const t = await mint([{ context: "*", role: "admin", create: true }]);
    const routes: [string, RequestInit & { json?: unknown }][] = [
      ["/tokens", {}],
      ["/tokens", { method: "POST", json: { name: "x", grants: [{ context: "*", role: "read" }] } }],
      [`/tokens/${t.id}`, { method: "DELETE" }],
      ["/contexts", {}],
      ["/contexts", { method: "POST", json: { name: freshContext() } }],
      ["/contexts/default", { method: "PATCH", json: { readOnly: true } }],
      ["/contexts/default/purge?confirm=default", { method: "POST" }],
      ["/audit", {}],
      ["/admin/registry-calls", {}],
    ];
    for (const [path, init] of routes) {
      const res = await api(path, init, t.token);
      expect(res.status, path).toBe(403);
      expect((await body(res)).message).toContain("ADMIN_TOKEN");
    }
  });
});

describe("yes/no query parameters", () => {
  it("refuses a value it cannot read as yes or no, naming the parameter, instead of reading it as no", async () => {
    const name = freshContext("flags");
    await createContext(name);
    for (const path of ["/tokens?revoked=maybe", "/contexts?removed=yes", "/oauth/grants?revoked=on", `/contexts/${name}/export?history=yes`]) {
      const res = await api(path);
      expect(res.status, path).toBe(400);
      expect((await body(res)).message, path).toMatch(/^(revoked|removed|history): true or false \(or 1 or 0\), not "(maybe|yes|on)"\.$/);
    }
    for (const path of ["/tokens?revoked=0", "/contexts?removed=true", "/oauth/grants?revoked=1", `/contexts/${name}/export?history=false`]) {
      expect((await api(path)).status, path).toBe(200);
    }
  });
});

describe("admin API: tokens", () => {
  it("creates a token shown once, lists it without secret or hash, and stores only its SHA-256", async () => {
    const name = freshContext("alice");
    const res = await api("/tokens", { method: "POST", json: { name, grants: [{ context: "team-*", role: "write", create: true }] } });
    expect(res.status).toBe(201);
    const created = await body<{ id: string; token: string; grants: unknown; createdAt: string }>(res);
    expect(created.token).toMatch(/^eg_/);
    // Times as ISO 8601, as the webhooks route and the tools show them, not epoch milliseconds.
    expect(created.createdAt).toMatch(ISO_TIME);
    expect(Math.abs(Date.parse(created.createdAt) - Date.now())).toBeLessThan(60_000);
    expect(created.grants).toEqual([{ context: "team-*", role: "write", create: true }]);

    const listed = await body<{ tokens: Record<string, unknown>[] }>(await api("/tokens"));
    const row = listed.tokens.find((t) => t.id === created.id);
    expect(row).toEqual({ id: created.id, name, grants: created.grants, createdAt: created.createdAt, lastUsedAt: null, revokedAt: null });
    expect(JSON.stringify(listed)).not.toContain(created.token);

    const stored = await runInDurableObject(registryOf(env), (_r: Registry, state) =>
      state.storage.sql.exec("SELECT * FROM tokens WHERE id = ?", created.id).toArray(),
    );
    expect(stored[0]?.hash).toBe(await tokenHash(created.token));
    expect(JSON.stringify(stored)).not.toContain(created.token);
  });

  it("rejects bad token requests with the field at fault", async () => {
    const cases: [unknown, string][] = [
      [{ name: "ok-name", grants: [] }, "grants"],
      [{ name: "ok-name", grants: [{ context: "Team A", role: "read" }] }, "grants.0.context"],
      [{ name: "ok-name", grants: [{ context: "x", role: "owner" }] }, "grants.0.role"],
      [{ name: "ok-name", grants: [{ context: "*a".repeat(9), role: "read" }] }, 'grants.0.context: "*a*a*a*a*a*a*a*a*a" has 9 "*"; a grant holds at most 8'],
      [{ name: "ok-name", grants: [{ context: "x", role: "read", create: true }] }, "create needs role write or admin"],
      [{ name: "admin", grants: [{ context: "x", role: "read" }] }, "name"],
      [{ name: "", grants: [{ context: "x", role: "read" }] }, "name"],
    ];
    for (const [json, field] of cases) {
      const res = await api("/tokens", { method: "POST", json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((await body(res)).message).toContain(field);
    }
    const notJson = await api("/tokens", { method: "POST", body: "{", headers: { "Content-Type": "application/json" } });
    expect(notJson.status).toBe(400);
  });

  it("refuses a second live token with the same name, and allows the name again after a revocation by name", async () => {
    const name = freshContext("bob");
    const first = await mint([{ context: "x", role: "read" }], name);
    const dup = await api("/tokens", { method: "POST", json: { name, grants: [{ context: "x", role: "read" }] } });
    expect(dup.status).toBe(409);
    const revoked = await api(`/tokens/${name}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect((await body<{ token: { id: string; revokedAt: string } }>(revoked)).token).toMatchObject({ id: first.id, revokedAt: expect.stringMatching(ISO_TIME) });
    await mint([{ context: "x", role: "read" }], name);

    const live = await body<{ tokens: { id: string }[] }>(await api("/tokens"));
    expect(live.tokens.map((t) => t.id)).not.toContain(first.id);
    const all = await body<{ tokens: { id: string }[] }>(await api("/tokens?revoked=true"));
    expect(all.tokens.map((t) => t.id)).toContain(first.id);
    expect((await api("/tokens/tok_0000000000000000", { method: "DELETE" })).status).toBe(404);
  });
});

describe("admin API: token names that look like token ids", () => {
  const live = async () => (await body<{ tokens: { id: string; name: string }[] }>(await api("/tokens"))).tokens;

  it("refuses a name starting with tok_, whatever its case, and mints nothing", async () => {
    const victim = await mint([{ context: "x", role: "read" }]);
    const before = await live();
    for (const name of [victim.id, "tok_d8bea437f0824a58", "TOK_x"]) {
      const res = await api("/tokens", { method: "POST", json: { name, grants: [{ context: "x", role: "read" }] } });
      expect(res.status, name).toBe(400);
      expect((await body(res)).message).toBe(
        'name: name must not start with "tok_": that prefix is reserved for token ids, so a name can never be mistaken for one',
      );
    }
    expect(await live()).toEqual(before);
    // The Registry holds the rule too, whoever calls it.
    expect(
      await registryOf(env).createToken({ id: "tok_ffffffffffffff01", name: "tok_sneaky", hash: "ee".repeat(32), grants: [{ context: "x", role: "read" }] }, "test"),
    ).toMatchObject({
      ok: false,
      kind: "Invalid",
    });
  });

  it("revokes by id for a tok_ ref and by live name otherwise, and says which is missing", async () => {
    const a = await mint([{ context: "x", role: "read" }]);
    const b = await mint([{ context: "x", role: "read" }]);
    const byId = await api(`/tokens/${a.id}`, { method: "DELETE" });
    expect((await body<{ token: { id: string } }>(byId)).token.id).toBe(a.id);
    const byName = await api(`/tokens/${b.name}`, { method: "DELETE" });
    expect((await body<{ token: { id: string } }>(byName)).token.id).toBe(b.id);
    const noId = await api("/tokens/tok_0000000000000001", { method: "DELETE" });
    expect(noId.status).toBe(404);
    expect((await body(noId)).message).toBe('No token has the id "tok_0000000000000001". GET /api/tokens?revoked=true lists every token with its id.');
    const noName = await api("/tokens/nobody-here", { method: "DELETE" });
    expect(noName.status).toBe(404);
    expect((await body(noName)).message).toBe('No live token is named "nobody-here". GET /api/tokens lists the live tokens with their ids.');
    const badBy = await api(`/tokens/${a.id}?by=hash`, { method: "DELETE" });
    expect(badBy.status).toBe(400);
    expect((await body(badBy)).message).toBe('by: must be id or name, not "hash"');
  });

  it("refuses a ref that is one token's id and an older token's name, revoking neither, until by= says which", async () => {
    const victim = await mint([{ context: "x", role: "read" }]);
    // A token named like the victim's id, as could be minted before the prefix was reserved.
    const legacyId = `tok_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    await runInDurableObject(registryOf(env), (_r: Registry, state) => {
      state.storage.sql.exec(
        "INSERT INTO tokens (id, name, hash, grants, created_at) VALUES (?, ?, ?, ?, ?)",
        legacyId,
        victim.id,
        "dd".repeat(32),
        JSON.stringify([{ context: "x", role: "read" }]),
        Date.now(),
      );
    });
    const ambiguous = await api(`/tokens/${victim.id}`, { method: "DELETE" });
    expect(ambiguous.status).toBe(409);
    expect((await body(ambiguous)).message).toBe(
      `"${victim.id}" is the id of token ${JSON.stringify(victim.name)} and the name of live token ${legacyId} (named before "tok_" was reserved for ids). Say which you mean with ?by=id or ?by=name (npm run admin: --by id|name); nothing was revoked.`,
    );
    expect((await live()).map((t) => t.id)).toEqual(expect.arrayContaining([victim.id, legacyId]));

    const named = await api(`/tokens/${victim.id}?by=name`, { method: "DELETE" });
    expect((await body<{ token: { id: string } }>(named)).token.id).toBe(legacyId);
    expect((await live()).map((t) => t.id)).toContain(victim.id);
    const ided = await api(`/tokens/${victim.id}?by=id`, { method: "DELETE" });
    expect((await body<{ token: { id: string } }>(ided)).token.id).toBe(victim.id);

    // A legacy name that is no token's id is still not taken for a name without by=name.
    const orphanName = `tok_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const orphanId = `tok_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
    await runInDurableObject(registryOf(env), (_r: Registry, state) => {
      state.storage.sql.exec("INSERT INTO tokens (id, name, hash, grants, created_at) VALUES (?, ?, ?, '[]', ?)", orphanId, orphanName, "cc".repeat(32), Date.now());
    });
    const orphan = await api(`/tokens/${orphanName}`, { method: "DELETE" });
    expect(orphan.status).toBe(409);
    expect((await body(orphan)).message).toBe(
      `"${orphanName}" is no token's id but the name of live token ${orphanId} (named before "tok_" was reserved for ids). To revoke that token, say ?by=name (npm run admin: --by name) or give its id; nothing was revoked.`,
    );
    expect((await live()).map((t) => t.id)).toContain(orphanId);
    const byName = await api(`/tokens/${orphanName}?by=name`, { method: "DELETE" });
    expect((await body<{ token: { id: string } }>(byName)).token.id).toBe(orphanId);
  });
});

describe("admin API: contexts", () => {
  it("creates, lists, updates and refuses duplicates and unknown names", async () => {
    const name = freshContext("team");
    const created = await api("/contexts", { method: "POST", json: { name, description: "API team", capacity: { total: 1000 } } });
    expect(created.status).toBe(201);
    expect(await body(created)).toMatchObject({ name, description: "API team", readOnly: false, capacity: { total: 1000 }, createdBy: "admin" });
    expect((await api("/contexts", { method: "POST", json: { name } })).status).toBe(409);

    const updated = await api(`/contexts/${name}`, { method: "PATCH", json: { readOnly: true, description: "frozen", capacity: null } });
    expect(updated.status).toBe(200);
    expect(await body(updated)).toMatchObject({ name, description: "frozen", readOnly: true, capacity: null });

    const listed = await body<{ contexts: { name: string; readOnly: boolean }[] }>(await api("/contexts"));
    expect(listed.contexts.find((c) => c.name === name)).toMatchObject({ readOnly: true });

    expect((await api(`/contexts/${freshContext()}`, { method: "PATCH", json: { readOnly: true } })).status).toBe(404);
    expect((await api(`/contexts/${name}`, { method: "PATCH", json: {} })).status).toBe(400);
    expect((await api(`/contexts/${name}`, { method: "PATCH", json: { capacity: { nested: { no: 1 } } } })).status).toBe(400);
    expect((await api("/contexts", { method: "POST", json: { name: "Bad Name" } })).status).toBe(400);
  });

  it("lists removed contexts only when asked", async () => {
    const name = freshContext("team");
    await createContext(name);
    const admin = await connectAs(connectV2, (await mint([{ context: name, role: "admin" }])).token);
    await admin.call("remove_context", { name });
    await admin.close();
    const live = await body<{ contexts: { name: string }[] }>(await api("/contexts"));
    expect(live.contexts.map((c) => c.name)).not.toContain(name);
    const all = await body<{ contexts: { name: string; createdAt: string; removedAt: string | null }[] }>(await api("/contexts?removed=true"));
    expect(all.contexts.find((c) => c.name === name)).toMatchObject({ createdAt: expect.stringMatching(ISO_TIME), removedAt: expect.stringMatching(ISO_TIME) });
  });

  it("purges only with the name typed again, wipes the MemoryContext, and leaves it usable and empty", async () => {
    const name = freshContext("team");
    await createContext(name);
    const client = await connectAs(connectV2, (await mint([{ context: name, role: "write" }])).token, `/mcp/${name}`);
    await client.call("create_entities", { entities: [{ name: "a", entityType: "t", observations: ["x"] }] });

    for (const q of ["", "?confirm=", `?confirm=${name}x`]) {
      const res = await api(`/contexts/${name}/purge${q}`, { method: "POST" });
      expect(res.status, q).toBe(400);
      expect((await body(res)).message).toContain(`?confirm=${name}`);
    }
    const stub = env.MEMORY.getByName(name);
    expect(await stub.stats()).toEqual({ ok: true, value: { entities: 1, relations: 0, observations: 1 } });

    const purged = await api(`/contexts/${name}/purge?confirm=${name}`, { method: "POST" });
    expect(purged.status).toBe(200);
    expect(await body(purged)).toEqual({ purged: name, wasRegistered: true });
    const tables = await runInDurableObject(stub, (_o: MemoryContext, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM entities").one());
    expect(tables.n).toBe(0);
    // The name is forgotten: a writer without create rights can no longer use it.
    const gone = await client.call("read_graph");
    expect(gone.isError).toBe(true);
    await client.close();

    // Registered again, it starts empty and takes writes (the schema was re-created).
    await createContext(name);
    const again = await connectAs(connectV2, (await mint([{ context: name, role: "write" }])).token, `/mcp/${name}`);
    expect((await again.call("create_entities", { entities: [{ name: "b", entityType: "t", observations: [] }] })).isError).toBeFalsy();
    expect((json(await again.call("read_graph")) as { entities: { name: string }[] }).entities.map((e) => e.name)).toEqual(["b"]);
    await again.close();
  });

  it("purges the kept data of a removed context", async () => {
    const name = freshContext("team");
    await createContext(name);
    const owner = await connectAs(connectV2, (await mint([{ context: name, role: "admin" }])).token, `/mcp/${name}`);
    await owner.call("create_entities", { entities: [{ name: "old", entityType: "t", observations: [] }] });
    await owner.call("remove_context", { name });
    await owner.close();
    expect((await env.MEMORY.getByName(name).stats()).ok && (await env.MEMORY.getByName(name).stats())).toMatchObject({ value: { entities: 1 } });
    const res = await api(`/contexts/${name}/purge?confirm=${name}`, { method: "POST" });
    expect(await body(res)).toEqual({ purged: name, wasRegistered: false });
    expect(await env.MEMORY.getByName(name).stats()).toEqual({ ok: true, value: { entities: 0, relations: 0, observations: 0 } });
  });
});

describe("admin API: audit log", () => {
  it("records every admin action with who, what and when, newest first, in pages", async () => {
    const name = freshContext("team");
    const t = await mint([{ context: name, role: "read" }]);
    await createContext(name);
    await api(`/contexts/${name}`, { method: "PATCH", json: { readOnly: true } });
    await api(`/tokens/${t.id}`, { method: "DELETE" });
    await api(`/contexts/${name}/purge?confirm=${name}`, { method: "POST" });

    type Entry = { id: number; at: string; actor: string; action: string; target: string; detail: Record<string, unknown> | null };
    const page = await body<{ entries: Entry[]; nextBefore?: number }>(await api("/audit?limit=5"));
    const actions = page.entries.map((e) => [e.actor, e.action, e.target]);
    expect(actions.slice(0, 5)).toEqual([
      ["admin", "context.purge", name],
      ["admin", "token.revoke", t.name],
      ["admin", "context.update", name],
      ["admin", "context.create", name],
      ["admin", "token.create", t.name],
    ]);
    expect(page.entries[0]?.at).toMatch(ISO_TIME);
    expect(page.entries[4]?.detail).toEqual({ id: t.id, grants: [{ context: name, role: "read" }] });
    expect(JSON.stringify(page)).not.toContain(t.token);
    expect(page.nextBefore).toBe(page.entries[4]?.id);

    const next = await body<{ entries: Entry[] }>(await api(`/audit?limit=5&before=${page.nextBefore}`));
    expect(next.entries.every((e) => e.id < (page.nextBefore ?? 0))).toBe(true);
    expect((await api("/audit?limit=0")).status).toBe(400);
    expect((await api("/audit?before=x")).status).toBe(400);
  });
});

describe("import and export follow the context's grants", () => {
  it("lets a read grant export but not import, a write grant import, and nobody import into a read-only context", async () => {
    const name = freshContext("team");
    await createContext(name);
    const reader = await mint([{ context: name, role: "read" }]);
    const writer = await mint([{ context: name, role: "write" }]);
    const stranger = await mint([{ context: "other", role: "admin" }]);
    const post = (token: string) =>
      api(`/contexts/${name}/import`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body: entityLine("imported") }, token);

    expect((await post(reader.token)).status).toBe(403);
    expect((await post(stranger.token)).status).toBe(403);
    const ok = await post(writer.token);
    expect(ok.status).toBe(200);
    expect(await body(ok)).toMatchObject({ entitiesCreated: 1 });

    const exported = await api(`/contexts/${name}/export`, {}, reader.token);
    expect(exported.status).toBe(200);
    // Decoded by hand: workerd warns when .text() reads an x-ndjson body.
    expect(new TextDecoder().decode(await exported.arrayBuffer())).toContain('"imported"');
    expect((await api(`/contexts/${name}/export`, {}, stranger.token)).status).toBe(403);

    await api(`/contexts/${name}`, { method: "PATCH", json: { readOnly: true } });
    const frozen = await post(writer.token);
    expect(frozen.status).toBe(403);
    expect((await body(frozen)).message).toContain("read-only");
  });
});
