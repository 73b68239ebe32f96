/**
 * find_duplicates: scoring on realistic name variants, no pair for merely
 * similar unrelated names unless other evidence agrees, and the tool's
 * shape and bad input through a real MCP client.
 */
import { describe, expect, it } from "vitest";
import { normalName } from "../../src/graph/names";
import { connectV2, freshContext, text, type TestClient } from "../helpers/clients";

type Pair = { a: string; b: string; score: number; reasons: string[] };
const ent = (name: string, entityType = "company", observations: string[] = []) => ({ name, entityType, observations });

async function pairs(c: TestClient, args: Record<string, unknown> = {}): Promise<Pair[]> {
  const r = await c.call("find_duplicates", args);
  expect(r.isError, text(r)).toBeFalsy();
  return (r.structuredContent as { pairs: Pair[] }).pairs;
}
const pairOf = (list: Pair[], x: string, y: string) => list.find((p) => (p.a === x && p.b === y) || (p.a === y && p.b === x));

describe("normal names", () => {
  it.each([
    ["Acme Corp", "acme"],
    ["ACME Corporation", "acme"],
    ["Acme, Inc.", "acme"],
    ["The Acme Company Ltd", "acme"],
    ["Siemens GmbH", "siemen"],
    ["McDonald's", "mcdonald"],
    ["Open AI", "openai"],
    ["OpenAI LLC", "openai"],
    ["Labs", "lab"],
    ["Café Société", "cafesociete"],
  ])("%s has the key %s", (name, key) => {
    expect(normalName(name).key).toBe(key);
  });

  it("gives a name of several words its acronym", () => {
    expect(normalName("International Business Machines").acronym).toBe("ibm");
    expect(normalName("Bank of America").acronym).toBe("ba");
    expect(normalName("IBM").acronym).toBeUndefined();
  });
});

describe("find_duplicates", () => {
  it("scores realistic variants of one name as duplicates, with reasons", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("dup")}` });
    await c.call("create_entities", {
      entities: [
        ent("Acme Corp"),
        ent("ACME Corporation"),
        ent("acme"),
        ent("International Business Machines"),
        ent("IBM"),
        ent("Jane Doe", "person"),
        ent("jane doe's", "person"),
        ent("Payment Gateway", "service"),
        ent("paymentGateway", "service"),
        ent("Unrelated Thing", "service"),
      ],
    });
    const found = await pairs(c);
    for (const [x, y] of [
      ["Acme Corp", "ACME Corporation"],
      ["Acme Corp", "acme"],
      ["International Business Machines", "IBM"],
      ["Jane Doe", "jane doe's"],
      ["Payment Gateway", "paymentGateway"],
    ] as const) {
      const p = pairOf(found, x, y);
      expect(p, `${x} ~ ${y}`).toBeDefined();
      expect(p?.score).toBeGreaterThanOrEqual(0.8);
      expect(p?.reasons.length).toBeGreaterThan(1);
    }
    expect(pairOf(found, "IBM", "International Business Machines")?.reasons[0]).toBe("one name is the other's acronym");
    expect(pairOf(found, "Acme Corp", "acme")?.reasons).toEqual(["same name when normalised", "same type (company)"]);
    expect(found.some((p) => p.a === "Unrelated Thing" || p.b === "Unrelated Thing")).toBe(false);
    // Best first, each pair once.
    expect(found.map((p) => p.score)).toEqual([...found.map((p) => p.score)].sort((a, b) => b - a));
    await c.close();
  });

  it("keeps merely similar unrelated names below the default threshold unless observations and neighbours agree", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("dup")}` });
    await c.call("create_entities", { entities: [ent("Apex Labs"), ent("Acme Labs"), ent("Other Co", "company")] });
    expect(pairOf(await pairs(c), "Apex Labs", "Acme Labs")).toBeUndefined();
    const low = pairOf(await pairs(c, { minScore: 0 }), "Apex Labs", "Acme Labs");
    expect(low?.score).toBeLessThan(0.6);

    await c.call("add_observations", {
      observations: [
        { entityName: "Apex Labs", contents: ["based in Denver", "makes rockets"] },
        { entityName: "Acme Labs", contents: ["Based in Denver", "makes rockets"] },
      ],
    });
    await c.call("create_relations", {
      relations: [
        { from: "Apex Labs", to: "Other Co", relationType: "supplies" },
        { from: "Acme Labs", to: "Other Co", relationType: "supplies" },
      ],
    });
    const agreed = pairOf(await pairs(c), "Apex Labs", "Acme Labs");
    expect(agreed?.score).toBeGreaterThanOrEqual(0.6);
    expect(agreed?.reasons).toEqual(expect.arrayContaining(["2 shared observations", "1 shared neighbour", "same type (company)"]));
    await c.close();
  });

  it("lowers the score of names of different types, and filters by entityType", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("dup")}` });
    await c.call("create_entities", { entities: [ent("Jaguar", "animal"), ent("Jaguars", "car maker"), ent("Puma", "animal"), ent("PUMA", "animal")] });
    const all = await pairs(c, { minScore: 0 });
    const mixed = pairOf(all, "Jaguar", "Jaguars");
    expect(mixed?.reasons).toContain("different types (animal, car maker)");
    expect(mixed?.score).toBeLessThan(pairOf(all, "Puma", "PUMA")?.score ?? 0);
    const animals = await pairs(c, { entityType: "animal", minScore: 0 });
    expect(animals.map((p) => [p.a, p.b])).toEqual([["Puma", "PUMA"]]);
    expect(await pairs(c, { limit: 1, minScore: 0 })).toHaveLength(1);
    await c.close();
  });

  it.each([
    [{ minScore: 2 }, /minScore/],
    [{ limit: 0 }, /limit/],
    [{ limit: 1000 }, /limit/],
    [{ entityType: 3 }, /entityType/],
  ])("rejects %j with a clear error", async (args, message) => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("dup")}` });
    const r = await c.call("find_duplicates", args);
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(message);
    await c.close();
  });
});
