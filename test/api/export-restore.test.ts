import { describe, expect, it } from "vitest";
import { parseAt } from "../../src/api/pitr";
import { connectV2, freshContext, workerFetch } from "../helpers/clients";
import { exportText, stubOf } from "../helpers/context";

const base = "http://localhost/api/contexts";

describe("export with history", () => {
  it("appends one change line per change after the graph, only when asked", async () => {
    const ctx = freshContext("exh");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}`, headers: { "Mcp-Memory-Session": "s-9" } });
    await c.call("create_entities", { entities: [{ name: "A", entityType: "t", observations: ["o"] }] });
    await c.call("delete_observations", { deletions: [{ entityName: "A", observations: ["o"] }] });
    await c.call("undo");
    await c.close();

    const plain = await exportText(ctx);
    expect(plain).toBe(`${JSON.stringify({ type: "entity", name: "A", entityType: "t", observations: ["o"] })}\n`);
    const lines = (await exportText(ctx, true)).trimEnd().split("\n");
    expect(lines[0]).toBe(plain.trimEnd());
    const changes = lines.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(changes.map((x) => [x.type, x.seq, x.tool])).toEqual([
      ["change", 1, "create_entities"],
      ["change", 2, "delete_observations"],
      ["change", 3, "undo"],
    ]);
    expect(changes[1]).toMatchObject({
      caller: "local",
      session: "s-9",
      summary: "-obs A",
      items: ["entity:A"],
      undoneBy: 3,
      inverse: [{ kind: "observation", entity: "A", content: "o", prior: { id: 1 } }],
    });
    expect(changes[2]).toMatchObject({ undoes: [2], inverse: [{ kind: "observation", prior: null }] });
    expect(Date.parse(changes[0]?.at as string)).not.toBeNaN();
  });

  it("streams a long history in pages with every change once", async () => {
    const ctx = freshContext("exh");
    const stub = stubOf(ctx);
    await stub.createEntities([{ name: "A", entityType: "t", observations: [] }], { caller: "x", callerId: "x", tool: "t" });
    for (let i = 0; i < 250; i++) await stub.addObservations([{ entityName: "A", contents: [`o${i}`] }], { caller: "x", callerId: "x", tool: "t" });
    const lines = (await exportText(ctx, true)).trimEnd().split("\n");
    const seqs = lines.slice(1).map((l) => (JSON.parse(l) as { seq: number }).seq);
    expect(seqs).toEqual(Array.from({ length: 251 }, (_, i) => i + 1));
  });

  it("includes file and document changes with their items and inverse ops", async () => {
    const ctx = freshContext("exh");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create", { path: "notes/a.md", file_text: "one" });
    await c.call("rename", { old_path: "notes/a.md", new_path: "b.md" });
    await c.call("update_document", { content: "# root\n\n[[plan]]\n" });
    await c.call("undo");
    await c.close();

    const lines = (await exportText(ctx, true)).trimEnd().split("\n");
    const changes = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((x) => x.type === "change");
    expect(changes.map((x) => [x.tool, x.summary, x.items])).toEqual([
      ["create", "+file notes/a.md", ["file:notes/a.md"]],
      ["rename", "~file notes/a.md -> b.md", ["file:b.md", "file:notes/a.md"]],
      ["update_document", "~doc root; +doc plan", ["doc:plan", "doc:root"]],
      ["undo", expect.stringMatching(/^undo #\d+: -doc plan; ~doc root$/), ["doc:plan", "doc:root"]],
    ]);
    expect(changes[0]?.inverse).toEqual([{ kind: "file", path: "notes/a.md", prior: null }]);
    expect(changes[1]?.inverse).toEqual([{ kind: "fileMove", from: "notes/a.md", to: "b.md", updatedAt: expect.any(Number) }]);
    expect(changes[2]).toMatchObject({
      undoneBy: changes[3]?.seq,
      inverse: [
        { kind: "document", id: "root", prior: { parent: null, content: "# メモ帳\n" } },
        { kind: "document", id: "plan", prior: null },
      ],
    });
  });

  it("exports an empty context with history as an empty file", async () => {
    expect(await exportText(freshContext("exh"), true)).toBe("");
  });
});

describe("point-in-time restore", () => {
  const post = (ctx: string, query: string, f = workerFetch()) =>
    f(`${base}/${ctx}/restore${query}`, { method: "POST", headers: { "Content-Type": "application/json" } });

  it("answers 501 under local workerd, which has no point-in-time recovery, and changes nothing", async () => {
    const ctx = freshContext("pitr");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create_entities", { entities: [{ name: "A", entityType: "t", observations: [] }] });
    const before = await exportText(ctx, true);
    for (const at of [new Date(Date.now() - 60_000).toISOString(), String(Date.now() - 60_000)]) {
      const res = await post(ctx, `?at=${encodeURIComponent(at)}`);
      expect(res.status).toBe(501);
      expect(((await res.json()) as { message: string }).message).toContain("only on the deployed Cloudflare platform");
    }
    expect(await exportText(ctx, true)).toBe(before);
    expect((await c.call("read_graph")).isError).toBeFalsy();
    await c.close();
  });

  it.each([
    ["", "exactly one of at"],
    ["?at=1&bookmark=abc", "exactly one of at"],
    ["?at=yesterday", "ISO 8601"],
    [`?at=${Date.now() + 3_600_000}`, "future"],
    [`?at=${new Date(Date.now() - 31 * 86_400_000).toISOString()}`, "30 days"],
    ["?bookmark=not%20a%20bookmark", "bookmark"],
  ])("rejects %s with 400 and a message", async (query, message) => {
    const res = await post(freshContext("pitr"), query);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain(message);
  });

  it("requires authentication like every API route", async () => {
    const res = await post(freshContext("pitr"), "?at=1", workerFetch({ ADMIN_TOKEN: "t0ken" }));
    expect(res.status).toBe(401);
  });

  it("reads at as milliseconds or an ISO time", () => {
    expect(parseAt("1700000000000")).toBe(1_700_000_000_000);
    expect(parseAt("2026-11-22T10:00:00Z")).toBe(Date.UTC(2026, 10, 22, 10));
    expect(parseAt("soon")).toBeUndefined();
  });
});
