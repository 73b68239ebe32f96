import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { registryOf, type Registry } from "../../src/registry/Registry";
import { freshContext } from "../helpers/clients";
import { at, withLogs } from "../helpers/logs";
import { api, mint } from "../helpers/teams";

/** A Registry of its own, so these store-level tests see only their own rows. */
const fresh = () => env.REGISTRY.getByName(freshContext("registry"));

describe("Registry object", () => {
  it("applies its own migrations on first use and records the version", async () => {
    const stub = fresh();
    const tables = await runInDurableObject(stub, (_r: Registry, state) => ({
      version: state.storage.sql.exec("SELECT MAX(version) AS v FROM _schema_version").one().v,
      names: state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name")
        .toArray()
        .map((r) => r.name),
    }));
    expect(tables.version).toBe(3);
    expect(tables.names).toEqual(["active_contexts", "audit_log", "contexts", "oauth_grants", "oauth_refresh_tokens", "tokens"]);
  });

  it("registers a context on first use only when allowed, the default always, and audits it", async () => {
    const stub = fresh();
    const denied = await stub.useContext("team-a", false, "alice");
    expect(denied).toMatchObject({ ok: false, kind: "NotFound" });
    expect(await stub.useContext("default", false, "alice")).toMatchObject({ ok: true, value: { name: "default", created: true } });
    expect(await stub.useContext("team-a", true, "alice")).toMatchObject({ ok: true, value: { name: "team-a", created: true, revived: false, createdBy: "alice" } });
    expect(await stub.useContext("team-a", false, "bob")).toMatchObject({ ok: true, value: { created: false } });
    const log = await stub.auditLog(10);
    expect(log.ok && log.value.map((e) => [e.actor, e.action, e.target, JSON.parse(e.detail ?? "{}").via])).toEqual([
      ["alice", "context.create", "team-a", "first use"],
      ["alice", "context.create", "default", "first use"],
    ]);
  });

  it("keeps a removed context's flags when a first write registers it again, and revives no read-only one for a write", async () => {
    const stub = fresh();
    await stub.addContext({ name: "archive", description: "old stuff" }, "admin", "api");
    await stub.removeContext("archive", "admin", "api");
    const revived = await stub.useContext("archive", true, "carol");
    expect(revived).toMatchObject({ ok: true, value: { readOnly: false, description: "old stuff", removedAt: null, created: true, revived: true } });
    // A use that may create comes only from a write, which a read-only context refuses: it stays removed.
    await stub.addContext({ name: "frozen", description: "kept", readOnly: true }, "admin", "api");
    await stub.removeContext("frozen", "admin", "api");
    expect(await stub.useContext("frozen", true, "carol")).toMatchObject({ ok: false, kind: "Forbidden" });
    expect(await stub.useContext("frozen", false, "carol")).toMatchObject({ ok: false, kind: "NotFound" });
  });

  it("falls the active context back to the default when the stored one was removed", async () => {
    const stub = fresh();
    await stub.addContext({ name: "team-a" }, "admin", "api");
    expect(await stub.setActiveContext("token:1", "team-a", "alice")).toMatchObject({ ok: true });
    expect(await stub.activeContext("token:1")).toEqual({ ok: true, value: { name: "team-a" } });
    expect(await stub.activeContext("token:2")).toEqual({ ok: true, value: { name: "default" } });
    await stub.removeContext("team-a", "admin", "api");
    expect(await stub.activeContext("token:1")).toEqual({ ok: true, value: { name: "default", fellBackFrom: "team-a" } });
    expect(await stub.setActiveContext("token:1", "team-a", "alice")).toMatchObject({ ok: false, kind: "NotFound" });
  });

  it("finds live tokens by hash, records their last use with the object's clock, and forgets revoked ones", async () => {
    const stub = fresh();
    await runInDurableObject(stub, (r: Registry) => {
      r.now = () => 5_000;
    });
    await stub.createToken({ id: "tok_1", name: "alice", hash: "ab".repeat(32), grants: [{ context: "*", role: "read" }] }, "admin");
    expect(await stub.lookupToken("ab".repeat(32))).toEqual({ ok: true, value: { id: "tok_1", name: "alice", grants: [{ context: "*", role: "read" }] } });
    expect(await stub.lookupToken("cd".repeat(32))).toEqual({ ok: true, value: null });
    const listed = await stub.listTokens(false);
    expect(listed.ok && listed.value[0]).toMatchObject({ createdAt: 5_000, lastUsedAt: 5_000 });
    await stub.revokeToken("alice", "admin");
    expect(await stub.lookupToken("ab".repeat(32))).toEqual({ ok: true, value: null });
  });
});

describe("Registry failures", () => {
  it("returns an internal error as a value, logged once under the reference it carries", async () => {
    const stub = fresh();
    await runInDurableObject(stub, (r: Registry) => {
      r.now = () => {
        throw new Error("clock broke");
      };
    });
    const { value, logged } = await withLogs(async (): Promise<unknown> => stub.listTokens(false));
    const ref = (value as { ref?: string }).ref ?? "";
    expect(ref).toMatch(/^[0-9a-f]{8}$/);
    expect(value).toEqual({ ok: false, kind: "Internal", ref, message: `Internal error (ref ${ref}).` });
    expect(at(logged, "error")).toEqual([expect.objectContaining({ event: "internal_error", ref, where: "registry", error: "Error: clock broke" })]);
  });

  it("keeps the HTTP answers to an internal error: 500, and never a 401 for a token it could not look up", async () => {
    const t = await mint([{ context: "*", role: "read" }]);
    const registry = registryOf(env);
    await runInDurableObject(registry, (r: Registry) => {
      r.now = () => {
        throw new Error("clock broke");
      };
    });
    try {
      const { value, logged } = await withLogs(async () => {
        const listed = await api("/tokens");
        const looked = await api("/contexts/default/stats", {}, t.token);
        return [listed.status, ((await listed.json()) as { error: string }).error, looked.status, ((await looked.json()) as { error: string }).error];
      });
      expect(value).toEqual([500, "internal_error", 500, "internal_error"]);
      expect(at(logged, "error").filter((l) => l.event === "internal_error" && l.where === "registry")).toHaveLength(2);
    } finally {
      await runInDurableObject(registry, (r: Registry) => {
        r.now = Date.now;
      });
    }
  });
});
