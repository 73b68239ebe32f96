import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, json } from "./helpers/clients";

describe.each(CLIENTS)("smoke with %s client", (_label, connect) => {
  it("lists the nine graph tools and creates an entity", async () => {
    const ctx = freshContext();
    const client = await connect({ url: `http://localhost/mcp/${ctx}` });
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("create_entities");
    const r = await client.call("create_entities", { entities: [{ name: "a", entityType: "t", observations: ["x"] }] });
    expect(r.isError).toBeFalsy();
    expect(json(r)).toEqual({ entities: [{ name: "a", entityType: "t", observations: ["x"] }] });
    await client.close();
  });
});
