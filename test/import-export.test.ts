import { describe, expect, it } from "vitest";
import { connectV2, freshContext, json, workerFetch } from "./helpers/clients";
import { registered } from "./helpers/context";

const f = workerFetch();
const base = "http://localhost/api/contexts";

async function exportText(context: string) {
  const res = await f(`${base}/${context}/export`);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toContain("ndjson");
  return res.text();
}

async function importText(context: string, body: string, query = "") {
  const res = await f(`${base}/${context}/import${query}`, { method: "POST", body });
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
