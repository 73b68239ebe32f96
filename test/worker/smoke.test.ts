/**
 * The nine tools engram shares with the official memory server, listed and
 * each answering one call, through both SDK generations' clients. What each
 * answers in detail is test/graph/compat.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, json } from "../helpers/clients";

const a = { name: "a", entityType: "t", observations: ["x"] };
const b = { name: "b", entityType: "t", observations: [] };
const ab = { from: "a", to: "b", relationType: "knows" };

/** The nine graph tools, in an order where each call finds what the earlier ones wrote. */
const NINE: [string, Record<string, unknown>][] = [
  ["create_entities", { entities: [a, b] }],
  ["create_relations", { relations: [ab] }],
  ["add_observations", { observations: [{ entityName: "a", contents: ["y"] }] }],
  ["read_graph", {}],
  ["search_nodes", { query: "a" }],
  ["open_nodes", { names: ["a"] }],
  ["delete_observations", { deletions: [{ entityName: "a", observations: ["y"] }] }],
  ["delete_relations", { relations: [ab] }],
  ["delete_entities", { entityNames: ["b"] }],
];

describe.each(CLIENTS)("smoke with %s client", (_label, connect) => {
  it("lists the nine graph tools, and each answers a call without error", async () => {
    const client = await connect({ url: `http://localhost/mcp/${freshContext()}` });
    const listed = (await client.listTools()).map((t) => t.name);
    for (const [name] of NINE) expect(listed, name).toContain(name);
    for (const [name, args] of NINE) {
      const r = await client.call(name, args);
      expect(r.isError, `${name}: ${r.content[0]?.text}`).toBeFalsy();
      expect(r.structuredContent, name).toBeDefined();
    }
    expect(json(await client.call("read_graph"))).toEqual({ entities: [a], relations: [] });
    await client.close();
  });
});
