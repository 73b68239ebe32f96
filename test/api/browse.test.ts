import { describe, expect, it } from "vitest";
import { EngramClient } from "../../src/ui/client/mcp";
import { freshContext, workerFetch } from "../helpers/clients";
import { api, createContext, mint } from "../helpers/teams";

const local = new EngramClient({ base: "http://127.0.0.1:8787", fetch: workerFetch() });
const get = async <T>(path: string) => {
  const r = await workerFetch()(`http://127.0.0.1:8787/api${path}`, {});
  return { status: r.status, body: (await r.json()) as T };
};

interface Page {
  entities: { name: string; entityType: string; important: boolean; degree: number; observations: number }[];
  next?: string;
  previous?: string;
  types?: { type: string; count: number }[];
}

async function seed(ctx: string, n: number): Promise<void> {
  const entities = Array.from({ length: n }, (_, i) => ({
    name: `E${String(i).padStart(3, "0")}`,
    entityType: i % 3 === 0 ? "person" : "thing",
    observations: [`o${i}`],
  }));
  await local.callTool(ctx, "create_entities", { entities });
}

describe("GET /api/contexts/:name/entities (browse without a search)", () => {
  it("pages forwards and back by name with keyset cursors, and offers the types on the first page", async () => {
    const ctx = freshContext("browse");
    await seed(ctx, 25);
    const first = await get<Page>(`/contexts/${ctx}/entities?limit=10`);
    expect(first.status).toBe(200);
    expect(first.body.entities.map((e) => e.name)).toEqual(Array.from({ length: 10 }, (_, i) => `E${String(i).padStart(3, "0")}`));
    expect(first.body.previous).toBeUndefined();
    expect(first.body.types).toEqual([
      { type: "thing", count: 16 },
      { type: "person", count: 9 },
    ]);
    const second = await get<Page>(`/contexts/${ctx}/entities?limit=10&cursor=${first.body.next}`);
    expect(second.body.entities[0]?.name).toBe("E010");
    expect(second.body.types).toBeUndefined();
    const third = await get<Page>(`/contexts/${ctx}/entities?limit=10&cursor=${second.body.next}`);
    expect(third.body.entities.map((e) => e.name)).toEqual(["E020", "E021", "E022", "E023", "E024"]);
    expect(third.body.next).toBeUndefined();
    const back = await get<Page>(`/contexts/${ctx}/entities?limit=10&cursor=${third.body.previous}`);
    expect(back.body.entities.map((e) => e.name)).toEqual(second.body.entities.map((e) => e.name));
    const backAgain = await get<Page>(`/contexts/${ctx}/entities?limit=10&cursor=${back.body.previous}`);
    expect(backAgain.body.entities.map((e) => e.name)).toEqual(first.body.entities.map((e) => e.name));
    expect(backAgain.body.previous).toBeUndefined();
    expect(backAgain.body.next).toBeDefined();
  });

  it("filters by type and sorts by last update and by priority (marked first)", async () => {
    const ctx = freshContext("browse");
    await seed(ctx, 9);
    const people = await get<Page>(`/contexts/${ctx}/entities?type=person`);
    expect(people.body.entities.map((e) => e.name)).toEqual(["E000", "E003", "E006"]);
    await local.callTool(ctx, "add_observations", { observations: [{ entityName: "E004", contents: ["later"] }] });
    const updated = await get<Page>(`/contexts/${ctx}/entities?sort=updated&limit=2`);
    expect(updated.body.entities[0]?.name).toBe("E004");
    await local.callTool(ctx, "mark_important", { items: ["entity:E007"], important: true });
    const ranked = await get<Page>(`/contexts/${ctx}/entities?sort=priority&limit=3`);
    expect(ranked.body.entities[0]).toMatchObject({ name: "E007", important: true });
    const rest = await get<Page>(`/contexts/${ctx}/entities?sort=priority&limit=3&cursor=${ranked.body.next}`);
    const all = [...ranked.body.entities, ...rest.body.entities].map((e) => e.name);
    expect(new Set(all).size).toBe(6);
  });

  it("rejects a bad sort, limit or cursor with a message", async () => {
    const ctx = freshContext("browse");
    await seed(ctx, 1);
    expect(await get(`/contexts/${ctx}/entities?sort=size`)).toMatchObject({ status: 400, body: { message: "sort: one of name, updated, priority." } });
    expect(await get(`/contexts/${ctx}/entities?limit=0`)).toMatchObject({ status: 400, body: { message: "limit: an integer from 1 to 200." } });
    expect((await get<{ message: string }>(`/contexts/${ctx}/entities?cursor=nonsense`)).body.message).toContain("cursor: not a cursor");
  });

  it("needs a read grant on the context", async () => {
    const ctx = freshContext("browse");
    const other = freshContext("browse");
    await createContext(ctx);
    await createContext(other);
    const token = await mint([{ context: other, role: "read" }]);
    const refused = await api(`/contexts/${ctx}/entities`, {}, token.token);
    expect(refused.status).toBe(403);
    expect((await api(`/contexts/${other}/entities`, {}, token.token)).status).toBe(200);
  });
});

describe("GET /api/contexts/:name/graph (the whole-context picture and a neighbourhood)", () => {
  it("ranks marked and connected entities first up to the cap, with the relations among them", async () => {
    const ctx = freshContext("picture");
    await seed(ctx, 8);
    await local.callTool(ctx, "create_relations", {
      relations: [
        { from: "E005", to: "E001", relationType: "knows" },
        { from: "E005", to: "E002", relationType: "knows" },
        { from: "E002", to: "E007", relationType: "uses" },
      ],
    });
    await local.callTool(ctx, "mark_important", { items: ["entity:E006"], important: true });
    const top = await get<{ entities: { name: string }[]; relations: unknown[]; total: number }>(`/contexts/${ctx}/graph?limit=3`);
    expect(top.body.entities.map((e) => e.name)).toEqual(["E006", "E002", "E005"]);
    expect(top.body.relations).toEqual([{ from: "E005", to: "E002", relationType: "knows" }]);
    expect(top.body.total).toBe(8);
    const around = await get<{ entities: { name: string }[]; relations: unknown[]; total: number }>(`/contexts/${ctx}/graph?around=E002`);
    expect(around.body.entities.map((e) => e.name).sort()).toEqual(["E002", "E005", "E007"]);
    expect(around.body.relations).toHaveLength(2);
    expect(around.body.total).toBe(3);
    expect(await get(`/contexts/${ctx}/graph?around=Nobody`)).toMatchObject({ status: 404, body: { message: 'Entity "Nobody" not found.' } });
  });
});
