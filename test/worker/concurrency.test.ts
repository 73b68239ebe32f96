/**
 * Write safety under concurrency: many MCP clients writing to one context at
 * once through the Worker. Every acknowledged write must be there afterwards,
 * every count must match, and the history must hold exactly one change per
 * write that changed something.
 */
import { describe, expect, it } from "vitest";
import { connectV1, connectV2, freshContext, json, type TestClient } from "../helpers/clients";
import { changesOf, exportText } from "../helpers/context";

const CLIENT_COUNT = 50;
const OBS_PER_CLIENT = 4;

interface Graph {
  entities: { name: string; entityType: string; observations: string[] }[];
  relations: { from: string; to: string; relationType: string }[];
}

async function connectMany(ctx: string): Promise<TestClient[]> {
  // Half 2025-era, half 2026-07-28 clients, all at once.
  return Promise.all(Array.from({ length: CLIENT_COUNT }, (_, i) => (i % 2 === 0 ? connectV1 : connectV2)({ url: `http://localhost/mcp/${ctx}` })));
}

async function graphOf(ctx: string): Promise<Graph> {
  const graph: Graph = { entities: [], relations: [] };
  for (const line of (await exportText(ctx)).split("\n").filter(Boolean)) {
    const o = JSON.parse(line) as { type: string } & Record<string, unknown>;
    if (o.type === "entity") graph.entities.push(o as unknown as Graph["entities"][number]);
    else graph.relations.push(o as unknown as Graph["relations"][number]);
  }
  return graph;
}

describe("concurrent writers", () => {
  it(`keeps every acknowledged write of ${CLIENT_COUNT} clients writing to one context at once`, async () => {
    const ctx = freshContext("conc");
    const clients = await connectMany(ctx);
    const first = clients[0] as TestClient;
    expect((await first.call("create_entities", { entities: [{ name: "hub", entityType: "t", observations: [] }] })).isError).toBeFalsy();

    const acked = { observations: [] as string[], created: [] as string[], relations: 0, deleted: [] as string[], writes: 0 };
    await Promise.all(
      clients.map(async (c, i) => {
        const create = await c.call("create_entities", {
          entities: [
            { name: `keep-${i}`, entityType: "t", observations: [`k${i}`] },
            { name: `drop-${i}`, entityType: "t", observations: [] },
          ],
        });
        expect(create.isError).toBeFalsy();
        acked.created.push(...json<{ entities: { name: string }[] }>(create).entities.map((e) => e.name));
        acked.writes++;
        for (let j = 0; j < OBS_PER_CLIENT; j++) {
          const r = await c.call("add_observations", { observations: [{ entityName: "hub", contents: [`c${i}-o${j}`] }] });
          expect(r.isError).toBeFalsy();
          acked.observations.push(...(json<{ results: { addedObservations: string[] }[] }>(r).results[0]?.addedObservations ?? []));
          acked.writes++;
        }
        const rel = await c.call("create_relations", { relations: [{ from: `keep-${i}`, to: "hub", relationType: "feeds" }] });
        expect(rel.isError).toBeFalsy();
        acked.relations += json<{ relations: unknown[] }>(rel).relations.length;
        acked.writes++;
        const del = await c.call("delete_entities", { entityNames: [`drop-${i}`] });
        expect(del.isError).toBeFalsy();
        if ((del.structuredContent as { message: string }).message.startsWith("Deleted 1 entity")) acked.deleted.push(`drop-${i}`);
        acked.writes++;
      }),
    );

    expect(acked.observations).toHaveLength(CLIENT_COUNT * OBS_PER_CLIENT);
    expect(acked.created).toHaveLength(CLIENT_COUNT * 2);
    expect(acked.relations).toBe(CLIENT_COUNT);
    expect(acked.deleted).toHaveLength(CLIENT_COUNT);

    const graph = await graphOf(ctx);
    const hub = graph.entities.find((e) => e.name === "hub");
    expect(new Set(hub?.observations)).toEqual(new Set(acked.observations));
    expect(hub?.observations).toHaveLength(CLIENT_COUNT * OBS_PER_CLIENT);
    expect(graph.entities.map((e) => e.name).sort()).toEqual(["hub", ...Array.from({ length: CLIENT_COUNT }, (_, i) => `keep-${i}`)].sort());
    expect(graph.relations).toHaveLength(CLIENT_COUNT);

    // One change per acknowledged write, plus the hub's creation; no gaps in the sequence.
    const changes = await changesOf(ctx, { limit: 200 });
    const all = [...changes, ...(await changesOf(ctx, { limit: 200, before: changes[changes.length - 1]?.seq }))];
    expect(all).toHaveLength(acked.writes + 1);
    expect(all.map((c) => c.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: acked.writes + 1 }, (_, i) => i + 1));
    expect(all.filter((c) => c.tool === "add_observations")).toHaveLength(CLIENT_COUNT * OBS_PER_CLIENT);
    await Promise.all(clients.map((c) => c.close()));
  });

  it("serialises racing writers of the same thing: each is applied and acknowledged exactly once", async () => {
    const ctx = freshContext("conc");
    const clients = await connectMany(ctx);
    const victims = Array.from({ length: 10 }, (_, i) => ({ name: `victim-${i}`, entityType: "t", observations: [] }));
    await (clients[0] as TestClient).call("create_entities", { entities: [{ name: "hub", entityType: "t", observations: [] }, ...victims] });

    const results = await Promise.all(
      clients.map(async (c) => {
        const add = await c.call("add_observations", { observations: [{ entityName: "hub", contents: ["the same fact"] }] });
        const create = await c.call("create_entities", { entities: [{ name: "contested", entityType: "t", observations: [] }] });
        const del = await c.call("delete_entities", { entityNames: victims.map((v) => v.name) });
        return {
          added: json<{ results: { addedObservations: string[] }[] }>(add).results[0]?.addedObservations.length ?? 0,
          created: json<{ entities: unknown[] }>(create).entities.length,
          deleted: Number(/^Deleted (\d+) entit/.exec((del.structuredContent as { message: string }).message)?.[1] ?? -1),
        };
      }),
    );
    const sum = (k: keyof (typeof results)[number]) => results.reduce((n, r) => n + r[k], 0);
    expect([sum("added"), sum("created"), sum("deleted")]).toEqual([1, 1, victims.length]);

    const graph = await graphOf(ctx);
    expect(graph.entities.map((e) => e.name).sort()).toEqual(["contested", "hub"]);
    expect(graph.entities.find((e) => e.name === "hub")?.observations).toEqual(["the same fact"]);
    // Calls that changed nothing recorded nothing.
    const tools = (await changesOf(ctx)).map((c) => c.tool).sort();
    expect(tools.filter((t) => t === "add_observations")).toHaveLength(1);
    expect(tools.filter((t) => t === "create_entities")).toHaveLength(2);
    // Each call is one transaction, so the first delete took all the victims and the rest found none.
    expect(tools.filter((t) => t === "delete_entities")).toHaveLength(1);
    expect(results.filter((r) => r.deleted === victims.length)).toHaveLength(1);
    await Promise.all(clients.map((c) => c.close()));
  });
});
