import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, text } from "../helpers/clients";
import { changesOf, exportText } from "../helpers/context";
import { ADMIN, api, connectAs, createContext, mint } from "../helpers/teams";

const entity = (name: string) => ({ entities: [{ name, entityType: "t", observations: [] }] });

describe.each(CLIENTS)("history with API tokens (%s client)", (_label, connect) => {
  it("attributes changes to token names, and an undo never clobbers another teammate's later change", async () => {
    const ctx = freshContext("hteam");
    await createContext(ctx);
    const [alice, bob] = await Promise.all([mint([{ context: ctx, role: "write" }]), mint([{ context: ctx, role: "write" }])]);
    const a = await connectAs(connect, alice.token, `/mcp/${ctx}`);
    const b = await connectAs(connect, bob.token, `/mcp/${ctx}`);
    await a.call("create_entities", entity("Plan"));
    await b.call("add_observations", { observations: [{ entityName: "Plan", contents: ["bob's note"] }] });

    const lines = text(await a.call("memory_history")).split("\n");
    expect(lines[0]).toContain(` ${bob.name} add_observations: +obs Plan`);
    expect(lines[1]).toContain(` ${alice.name} create_entities: +entity Plan`);

    const before = await exportText(ctx, true);
    const refused = await a.call("undo");
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(`#2 by ${bob.name}`);
    expect(await exportText(ctx, true)).toBe(before);

    expect((await b.call("undo")).isError).toBeFalsy();
    expect((await a.call("undo")).isError).toBeFalsy();
    expect(await exportText(ctx)).toBe("");
    await a.close();
    await b.close();
  });

  it("lets a read grant list the history but not undo", async () => {
    const ctx = freshContext("hteam");
    await createContext(ctx);
    const admin = await connectAs(connect, ADMIN, `/mcp/${ctx}`);
    await admin.call("create_entities", entity("Kept"));
    const reader = await connectAs(connect, (await mint([{ context: ctx, role: "read" }])).token, `/mcp/${ctx}`);
    expect(text(await reader.call("memory_history"))).toContain("admin create_entities: +entity Kept");
    const r = await reader.call("undo", { change: 1 });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("read-only");
    expect((await changesOf(ctx)).map((c) => c.tool)).toEqual(["create_entities"]);
    await admin.close();
    await reader.close();
  });
});

describe.each(CLIENTS)("undo across token generations (%s client)", (_label, connect) => {
  it("keeps a new token of a revoked token's name from undoing the old token's change by undo{}, and lets it by number", async () => {
    const ctx = freshContext("hteam");
    await createContext(ctx);
    const name = freshContext("bob");
    const grants = [{ context: ctx, role: "write" as const }];
    const a = await mint(grants, name);
    const ca = await connectAs(connect, a.token, `/mcp/${ctx}`);
    await ca.call("create_entities", entity("Plan"));
    await ca.close();
    expect((await api(`/tokens/${a.id}`, { method: "DELETE" })).status).toBe(200);

    const b = await mint(grants, name);
    expect(b.name).toBe(a.name);
    const cb = await connectAs(connect, b.token, `/mcp/${ctx}`);
    const before = await exportText(ctx, true);
    const refused = await cb.call("undo");
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain(
      `Nothing of yours to undo: "${name}" (token ${b.id}) has no change in effect in this context. Changes by an earlier token also named "${name}" are not yours. memory_history lists changes; undo{change} undoes a given one.`,
    );
    expect(await exportText(ctx, true)).toBe(before);

    // History names both by name, and tells the two tokens apart by id.
    const listed = (await cb.call("memory_history")).structuredContent as { changes: { seq: number; caller: string; callerId?: string }[] };
    expect(listed.changes).toEqual([expect.objectContaining({ caller: name, callerId: a.id })]);
    expect(text(await cb.call("memory_history"))).toContain(` ${name} create_entities: +entity Plan`);

    // A's change is not B's own, but B's write grant may still undo it by number.
    const seq = listed.changes[0]?.seq as number;
    const undone = await cb.call("undo", { change: seq });
    expect(undone.isError, text(undone)).toBeFalsy();
    expect((undone.structuredContent as { undone: { seq: number; caller: string }[] }).undone).toEqual([expect.objectContaining({ seq, caller: name })]);
    expect(await exportText(ctx)).toBe("");
    // That undo is B's change, recorded with B's id.
    const undoChange = (undone.structuredContent as { change: number }).change;
    expect((await changesOf(ctx)).find((ch) => ch.seq === undoChange)).toMatchObject({ caller: name, callerId: b.id });
    expect((await cb.call("undo", { change: undoChange })).isError).toBeFalsy();
    expect(await exportText(ctx)).toContain('"Plan"');
    await cb.close();
  });
});

describe("restore with API tokens", () => {
  it("refuses an API token, even one with an admin grant, with 403", async () => {
    const ctx = freshContext("hteam");
    await createContext(ctx);
    const token = (await mint([{ context: "*", role: "admin" }])).token;
    const res = await api(`/contexts/${ctx}/restore?at=${Date.now() - 60_000}`, { method: "POST" }, token);
    expect(res.status).toBe(403);
  });

  it("refuses to restore a read-only context, also for the administrator", async () => {
    const ctx = freshContext("hteam");
    await createContext(ctx, { readOnly: true });
    const res = await api(`/contexts/${ctx}/restore?at=${Date.now() - 60_000}`, { method: "POST" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toContain("read-only");
  });
});
