import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, json } from "../helpers/clients";

// relationsTouching binds every id twice and writes its LIMIT as a literal, so a
// chunk of 50 ids binds 100 parameters, the Durable Object limit, and 60 take two.
describe.each(CLIENTS)("relations of many entities with %s client", (_label, connect) => {
  it("open_nodes on 60 related entities returns every relation", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("wide")}` });
    const names = Array.from({ length: 60 }, (_, i) => `n${i}`);
    await c.call("create_entities", { entities: names.map((name) => ({ name, entityType: "node", observations: ["o"] })) });
    const relations = names.slice(1).map((name, i) => ({ from: names[i], to: name, relationType: "next" }));
    expect((await c.call("create_relations", { relations })).isError).toBeFalsy();
    const r = await c.call("open_nodes", { names });
    expect(r.isError).toBeFalsy();
    const out = json<{ entities: unknown[]; relations: unknown[] }>(r);
    expect(out.entities).toHaveLength(60);
    expect(out.relations).toHaveLength(59);
    await c.close();
  });
});
