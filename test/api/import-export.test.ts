import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Db } from "../../src/storage/sql";
import { exportArchivePage } from "../../src/priority/transfer";
import { connectV2, freshContext, json, workerFetch } from "../helpers/clients";
import { registered, stubOf } from "../helpers/context";
import { DAY_MS, ok, onlyPrunableByUse, prunableContext, rows, runAlarmAt } from "../helpers/priority";

const f = workerFetch();
const base = "http://localhost/api/contexts";

async function exportText(context: string) {
  const res = await f(`${base}/${context}/export`);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toContain("ndjson");
  // Decoded by hand: res.text() on an x-ndjson body makes workerd print a warning.
  return new TextDecoder().decode(await res.arrayBuffer());
}

async function importText(context: string, body: string, query = "") {
  const res = await f(`${base}/${context}/import${query}`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body });
  return { status: res.status, report: (await res.json()) as Record<string, unknown> & { rejected: { line: number; error: string }[] } };
}

const sorted = (text: string) => text.split("\n").filter(Boolean).sort().join("\n");

// A memory.jsonl as the official server writes it: entities, then relations, no trailing newline.
const official = [
  { type: "entity", name: "Alice", entityType: "person", observations: ["likes tea", "日本語も話す"] },
  { type: "entity", name: "Acme", entityType: "organization", observations: [] },
  { type: "relation", from: "Alice", to: "Acme", relationType: "works_at" },
]
  .map((o) => JSON.stringify(o))
  .join("\n");

describe("import and export", () => {
  it("imports an official memory.jsonl and exports it back byte-identical after sorting", async () => {
    const a = freshContext("io");
    const { status, report } = await importText(a, official);
    expect(status).toBe(200);
    expect(report).toMatchObject({ entitiesCreated: 2, relationsCreated: 1, rejected: [] });
    const first = await exportText(a);
    expect(sorted(first)).toBe(sorted(official));

    const b = freshContext("io");
    await importText(b, first);
    expect(sorted(await exportText(b))).toBe(sorted(first));
  });

  it("streams a large context in pages with every line once", async () => {
    const ctx = freshContext("io");
    const lines = Array.from({ length: 1200 }, (_, i) => JSON.stringify({ type: "entity", name: `n${i}`, entityType: "t", observations: [`o${i}`] }));
    lines.push(...Array.from({ length: 700 }, (_, i) => JSON.stringify({ type: "relation", from: `n${i}`, to: `n${i + 1}`, relationType: "r" })));
    const { report } = await importText(ctx, lines.join("\n"));
    expect(report).toMatchObject({ entitiesCreated: 1200, relationsCreated: 700 });
    const out = (await exportText(ctx)).split("\n").filter(Boolean);
    expect(out).toHaveLength(1900);
    expect(out.sort()).toEqual([...lines].sort());
  });

  it("reports rejected lines by number and imports the rest", async () => {
    const ctx = freshContext("io");
    const body = [
      JSON.stringify({ type: "entity", name: "ok", entityType: "t", observations: [] }),
      "{broken",
      JSON.stringify({ type: "entity", name: "", entityType: "t", observations: [] }),
      JSON.stringify({ type: "relation", from: "ok", to: "missing", relationType: "r" }),
      JSON.stringify({ type: "widget" }),
      "",
      JSON.stringify({ type: "relation", from: "ok", to: "ok", relationType: "self" }),
    ].join("\n");
    const { status, report } = await importText(ctx, body);
    expect(status).toBe(200);
    expect(report.entitiesCreated).toBe(1);
    expect(report.relationsCreated).toBe(1);
    expect(report.rejected.map((r) => r.line)).toEqual([2, 3, 4, 5]);
    expect(report.rejected[2]?.error).toContain('"missing"');
  });

  it("merges observations into existing entities and counts duplicates", async () => {
    const ctx = freshContext("io");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create_entities", { entities: [{ name: "Alice", entityType: "person", observations: ["likes tea"] }] });
    const { report } = await importText(ctx, official);
    expect(report).toMatchObject({ entitiesCreated: 1, entitiesMerged: 1, observationsAdded: 1 });
    const alice = json<{ entities: { observations: string[] }[] }>(await c.call("open_nodes", { names: ["Alice"] }));
    expect(alice.entities[0]?.observations).toEqual(["likes tea", "日本語も話す"]);
    expect((await importText(ctx, official)).report).toMatchObject({ entitiesCreated: 0, duplicates: 3 });
    await c.close();
  });

  it("numbers lines from firstLine for files sent in parts", async () => {
    const { report } = await importText(freshContext("io"), "{bad", "?firstLine=101");
    expect(report.rejected).toEqual([{ line: 101, error: "not valid JSON" }]);
  });
});

describe("isolation", () => {
  it("keeps two contexts fully apart", async () => {
    const [x, y] = [freshContext("iso"), await registered(freshContext("iso"))];
    const cx = await connectV2({ url: `http://localhost/mcp/${x}` });
    const cy = await connectV2({ url: "http://localhost/mcp" });
    await cx.call("create_entities", { entities: [{ name: "secret", entityType: "t", observations: ["only in x"] }] });
    expect(json(await cy.call("search_nodes", { query: "secret", context: y }))).toMatchObject({ entities: [] });
    expect(json(await cy.call("search_nodes", { query: "secret", context: x }))).toMatchObject({ entities: [{ name: "secret" }] });
    expect(await exportText(y)).toBe("");
    await cx.close();
    await cy.close();
  });

  it("refuses a context argument that conflicts with the URL's", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("iso")}` });
    const r = await c.call("read_graph", { context: "other" });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toContain("pinned");
    await c.close();
  });
});

describe("access statistics", () => {
  it("counts each open_nodes retrieval on the entities it returned", async () => {
    const { env, runInDurableObject } = await import("cloudflare:test");
    const ctx = freshContext("acc");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create_entities", {
      entities: [
        { name: "a", entityType: "t", observations: [] },
        { name: "b", entityType: "t", observations: [] },
      ],
    });
    await c.call("open_nodes", { names: ["a", "b"] });
    await c.call("open_nodes", { names: ["a", "a"] });
    await c.close();
    const rows = await runInDurableObject(env.MEMORY.getByName(ctx), (_i, state) =>
      state.storage.sql.exec("SELECT name, access_count, last_accessed_at IS NOT NULL AS seen FROM entities ORDER BY name").toArray(),
    );
    expect(rows).toEqual([
      { name: "a", access_count: 2, seen: 1 },
      { name: "b", access_count: 1, seen: 1 },
    ]);
  });
});

describe("archived items in export and import", () => {
  type Line = Record<string, unknown> & { type: string };
  const linesOf = (text: string) =>
    text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Line);

  /** A context where the evaluation archived entity A, which knows B. */
  async function archivedA() {
    const ctx = await prunableContext(4, "ioarc");
    await ok(ctx.c, "create_entities", { entities: ["A", "B", "K1", "K2"].map((n) => ({ name: n, entityType: "t", observations: [`about ${n}`] })) });
    await ok(ctx.c, "create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] });
    await onlyPrunableByUse(ctx.stub, { entities: ["A"] });
    expect(await runAlarmAt(ctx.stub, ctx.t0 + 200 * DAY_MS)).toBe(true);
    expect(await rows(ctx.stub, "SELECT item FROM archive")).toEqual([{ item: "entity:A" }]);
    return ctx;
  }

  it("exports an archived entity with its relation as a line the official reader skips, and import restores it as archived", async () => {
    const a = await archivedA();
    const first = await exportText(a.name);
    const lines = linesOf(first);
    // Live lines stay the official format; A is only in its archived line, after them.
    expect(lines.filter((l) => l.type === "entity").map((l) => l.name)).toEqual(["B", "K1", "K2"]);
    expect(lines.filter((l) => l.type === "relation")).toEqual([]);
    const archived = lines.at(-1);
    expect(archived).toEqual({
      type: "archived_entity",
      name: "A",
      entityType: "t",
      observations: ["about A"],
      relations: [{ from: "A", to: "B", relationType: "knows" }],
      priority: expect.any(Number),
      reason: expect.any(String),
      archivedAt: new Date(a.t0 + 200 * DAY_MS).toISOString(),
    });
    await a.c.close();

    const b = freshContext("io");
    const { status, report } = await importText(b, first);
    expect(status).toBe(200);
    expect(report).toMatchObject({ entitiesCreated: 3, archivedAdded: 1, rejected: [] });
    expect(sorted(await exportText(b))).toBe(sorted(first));
    // The same file again adds nothing.
    expect((await importText(b, first)).report).toMatchObject({ entitiesCreated: 0, archivedAdded: 0, duplicates: 4 });

    const c = await connectV2({ url: `http://localhost/mcp/${b}` });
    expect(json<{ entities: unknown[] }>(await c.call("open_nodes", { names: ["A"] })).entities).toEqual([]);
    expect(await ok(c, "restore", { items: ["entity:A"] })).toMatchObject({ restored: ["entity:A"] });
    expect(json(await c.call("open_nodes", { names: ["A"] }))).toMatchObject({
      entities: [{ name: "A", entityType: "t", observations: ["about A"] }],
      relations: [{ from: "A", to: "B", relationType: "knows" }],
    });
    expect(await rows(stubOf(b), "SELECT COUNT(*) AS n FROM archive")).toEqual([{ n: 0 }]);
    await c.close();
  });

  it("exports relations kept for a missing end, and they come back in the importing context once that end exists", async () => {
    const a = await archivedA();
    await ok(a.c, "delete_entities", { entityNames: ["B"] });
    expect(await ok(a.c, "restore", { items: ["entity:A"] })).toMatchObject({ relationsDeferred: [{ relation: "A -knows-> B" }] });
    const kept = linesOf(await exportText(a.name)).filter((l) => l.type.startsWith("archived"));
    expect(kept).toEqual([
      {
        type: "archived_relations",
        name: "A",
        relations: [{ from: "A", to: "B", relationType: "knows" }],
        priority: expect.any(Number),
        reason: expect.any(String),
        archivedAt: expect.any(String),
      },
    ]);
    await a.c.close();

    const b = freshContext("io");
    const text = await exportText(a.name);
    expect((await importText(b, text)).report).toMatchObject({ entitiesCreated: 3, archivedAdded: 1, rejected: [] });
    const c = await connectV2({ url: `http://localhost/mcp/${b}` });
    await ok(c, "create_entities", { entities: [{ name: "B", entityType: "t", observations: [] }] });
    expect(await ok(c, "restore", { items: ["entity:A"] })).toMatchObject({ relationsRestored: ["A -knows-> B"] });
    expect(json(await c.call("open_nodes", { names: ["A"] }))).toMatchObject({ relations: [{ from: "A", to: "B", relationType: "knows" }] });
    await c.close();
  });

  it("carries an archived entity's aliases on its line, and a restore in the importing context brings them back", async () => {
    const ctx = freshContext("io");
    const line = {
      type: "archived_entity",
      name: "ACME Corporation",
      entityType: "org",
      observations: ["based in Paris"],
      relations: [],
      aliases: ["Acme Corp"],
      priority: 0.1,
      reason: "pruned",
      archivedAt: "2026-01-31T12:00:00.000Z",
    };
    expect((await importText(ctx, JSON.stringify(line))).report).toMatchObject({ archivedAdded: 1, rejected: [] });
    expect(linesOf(await exportText(ctx))).toEqual([line]);
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    expect(await ok(c, "restore", { items: ["entity:ACME Corporation"] })).toMatchObject({ restored: ["entity:ACME Corporation"] });
    expect(json(await c.call("open_nodes", { names: ["Acme Corp"] }))).toMatchObject({
      entities: [{ name: "ACME Corporation" }],
      aliases: { "Acme Corp": "ACME Corporation" },
    });
    await c.close();
  });

  it("records archived lines with the import, so undo takes them out of the archive", async () => {
    const ctx = freshContext("io");
    const line = {
      type: "archived_entity",
      name: "A",
      entityType: "t",
      observations: ["o"],
      relations: [],
      priority: 0.1,
      reason: "pruned",
      archivedAt: "2026-01-31T12:00:00.000Z",
    };
    expect((await importText(ctx, JSON.stringify(line))).report).toMatchObject({ archivedAdded: 1 });
    expect(await rows(stubOf(ctx), "SELECT item FROM archive")).toEqual([{ item: "entity:A" }]);
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await ok(c, "undo", {});
    expect(await rows(stubOf(ctx), "SELECT item FROM archive")).toEqual([]);
    await c.close();
  });

  it("pages the archive by lines and by payload size, every row once", async () => {
    const ctx = freshContext("io");
    const lines = Array.from({ length: 7 }, (_, i) =>
      JSON.stringify({
        type: "archived_entity",
        name: `n${i}`,
        entityType: "t",
        observations: [`o${i}`],
        relations: [],
        priority: 0.1,
        reason: "pruned",
        archivedAt: new Date(i * 1000).toISOString(),
      }),
    );
    expect((await importText(ctx, lines.join("\n"))).report).toMatchObject({ archivedAdded: 7, rejected: [] });
    const pages = async (maxLines: number, maxChars: number) => {
      const out: string[][] = [];
      let after: number | undefined = 0;
      while (after !== undefined) {
        const from: number = after;
        const page = await runInDurableObject(stubOf(ctx), (_i, state) => exportArchivePage(new Db(state.storage.sql), from, maxLines, maxChars));
        out.push(page.lines);
        after = page.next;
      }
      return out;
    };
    const byLines = await pages(3, 1e9);
    expect(byLines.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(byLines.flat()).toEqual(lines);
    // Past the size limit a page still holds one row, so a large payload never stalls the export.
    const bySize = await pages(100, 1);
    expect(bySize.map((p) => p.length)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(bySize.flat()).toEqual(lines);
  });

  it("rejects archived lines with a relation away from their entity or a bad time, and writes none of them", async () => {
    const ctx = freshContext("io");
    const row = { priority: 0.1, reason: "pruned", archivedAt: "2026-01-31T12:00:00.000Z" };
    const body = [
      JSON.stringify({ type: "archived_entity", name: "A", entityType: "t", observations: [], relations: [{ from: "X", to: "Y", relationType: "r" }], ...row }),
      JSON.stringify({ type: "archived_entity", name: "A", entityType: "t", observations: [], relations: [], ...row, archivedAt: "yesterday" }),
      JSON.stringify({ type: "archived_relations", name: "A", relations: [], ...row }),
    ].join("\n");
    const { status, report } = await importText(ctx, body);
    expect(status).toBe(200);
    expect(report.archivedAdded).toBe(0);
    expect(report.rejected).toEqual([
      { line: 1, error: "relations: every relation must start or end at the entity named by `name`" },
      { line: 2, error: "archivedAt: archivedAt must be an ISO time such as 2026-01-31T12:00:00.000Z" },
      { line: 3, error: "relations: relations must not be empty" },
    ]);
    expect(await exportText(ctx)).toBe("");
  });
});
