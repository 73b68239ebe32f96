import { describe, expect, it } from "vitest";
import { connectV2, freshContext, json } from "../helpers/clients";

type Page = {
  entities: { name: string; observations?: string[] }[];
  relations: { from: string; to: string }[];
  nextCursor?: string;
  note?: string;
};

async function seed(url: string, count: number, observationBytes = 10) {
  const c = await connectV2({ url });
  for (let start = 0; start < count; start += 1000) {
    const entities = Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({
      name: `e${start + i}`,
      entityType: "node",
      observations: ["o".repeat(observationBytes)],
    }));
    await c.call("create_entities", { entities });
  }
  const relations = Array.from({ length: Math.min(count - 1, 999) }, (_, i) => ({ from: `e${i}`, to: `e${i + 1}`, relationType: "next" }));
  await c.call("create_relations", { relations });
  return c;
}

describe("read_graph on large graphs", () => {
  it("pages a graph over 2,000 entities and every entity and relation appears exactly once", async () => {
    const c = await seed(`http://localhost/mcp/${freshContext("rg")}`, 2500);
    const names: string[] = [];
    let relations = 0;
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = json<Page>(await c.call("read_graph", cursor ? { cursor } : {}));
      pages++;
      names.push(...page.entities.map((e) => e.name));
      relations += page.relations.length;
      if (page.nextCursor) expect(page.note).toContain("cursor");
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages).toBe(2);
    expect(names.length).toBe(2500);
    expect(new Set(names).size).toBe(2500);
    expect(relations).toBe(999);
    await c.close();
  });

  it("cuts a page at about 200 KB even under the entity limit", async () => {
    const c = await seed(`http://localhost/mcp/${freshContext("rg")}`, 300, 2000);
    const r = await c.call("read_graph");
    const page = json<Page>(r);
    expect(page.entities.length).toBeLessThan(300);
    expect(page.nextCursor).toBeDefined();
    expect(r.content[0]?.text?.length ?? 0).toBeLessThan(210 * 1024);
    await c.close();
  });

  it("returns names and types only in summary mode, honouring limit", async () => {
    const c = await seed(`http://localhost/mcp/${freshContext("rg")}`, 30);
    const page = json<Page>(await c.call("read_graph", { mode: "summary", limit: 10 }));
    expect(page.entities).toHaveLength(10);
    expect(page.entities[0]).toEqual({ name: "e0", entityType: "node" });
    const next = json<Page>(await c.call("read_graph", { mode: "summary", limit: 10, cursor: page.nextCursor }));
    expect(next.entities[0]?.name).toBe("e10");
    await c.close();
  });
});
