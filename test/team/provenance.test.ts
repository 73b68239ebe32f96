import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Db } from "../../src/storage/sql";
import { CLIENTS, freshContext, json, text, type TestClient } from "../helpers/clients";
import { stubOf } from "../helpers/context";
import { api, connectAs, createContext, mint, type Minted } from "../helpers/teams";

type Prov = { observation: string; by: string; at: string };
type Opened = { entities: { name: string; observations: string[]; provenance?: Prov[] }[] };
type Change = { seq: number; at: string; caller: string; tool: string };

/** A context with three teammates who may write it, each connected. */
async function team(connect: (typeof CLIENTS)[number][1]) {
  const ctx = freshContext("prov");
  await createContext(ctx);
  const grants = [{ context: ctx, role: "write" as const }];
  const people: Minted[] = await Promise.all([mint(grants), mint(grants), mint(grants)]);
  const clients = await Promise.all(people.map((p) => connectAs(connect, p.token, `/mcp/${ctx}`)));
  return { ctx, people, clients, close: () => Promise.all(clients.map((c) => c.close())) };
}

const provenanceOf = async (c: TestClient, name: string) =>
  json<Opened>(await c.call("open_nodes", { names: [name], provenance: true })).entities.find((e) => e.name === name)?.provenance;

const changes = async (c: TestClient) => ((await c.call("memory_history")).structuredContent as { changes: Change[] }).changes;

describe.each(CLIENTS)("provenance on reads (%s client)", (_label, connect) => {
  it("names who wrote each observation and when, as memory_history does, and leaves the answer as it was without the flag", async () => {
    const { people, clients, close } = await team(connect);
    const [a, b] = clients as [TestClient, TestClient];
    await a.call("create_entities", { entities: [{ name: "Plan", entityType: "project", observations: ["ships in May"] }] });
    await b.call("add_observations", { observations: [{ entityName: "Plan", contents: ["needs a designer"] }] });
    const [bobs, alices] = (await changes(a)) as [Change, Change];

    expect(await provenanceOf(b, "Plan")).toEqual([
      { observation: "ships in May", by: people[0]?.name, at: alices.at },
      { observation: "needs a designer", by: people[1]?.name, at: bobs.at },
    ]);
    const plain = json<Opened>(await b.call("open_nodes", { names: ["Plan"] }));
    expect(plain.entities[0]).toEqual({ name: "Plan", entityType: "project", observations: ["ships in May", "needs a designer"] });
    expect(text(await b.call("open_nodes", { names: ["Plan"] }))).not.toContain("provenance");
    await close();
  });

  it("keeps provenance through a merge, an update and an undo", async () => {
    const { people, clients, close } = await team(connect);
    const [a, b, c] = clients as [TestClient, TestClient, TestClient];
    await a.call("create_entities", { entities: [{ name: "Bob Smith", entityType: "person", observations: ["likes tea"] }] });
    await b.call("create_entities", { entities: [{ name: "Robert Smith", entityType: "person", observations: ["runs the lab"] }] });
    const before = await provenanceOf(a, "Bob Smith");
    expect((await c.call("merge_entities", { target: "Robert Smith", sources: ["Bob Smith"] })).isError).toBeFalsy();
    const merged = await provenanceOf(c, "Robert Smith");
    expect(merged).toEqual([expect.objectContaining({ observation: "runs the lab", by: people[1]?.name }), ...(before ?? [])]);

    // Carol deletes Alice's observation and takes it back: it is Alice's again, with its first time.
    await c.call("delete_observations", { deletions: [{ entityName: "Robert Smith", observations: ["likes tea"] }] });
    expect((await c.call("undo")).isError).toBeFalsy();
    expect(await provenanceOf(a, "Robert Smith")).toEqual(merged);

    // Undoing the merge gives Bob Smith's observation back to Alice.
    expect((await c.call("undo", { change: (await changes(c)).find((x) => x.tool === "merge_entities")?.seq })).isError).toBeFalsy();
    expect(await provenanceOf(a, "Bob Smith")).toEqual(before);

    // An update is its writer's; the superseded text is not a current observation.
    expect((await b.call("update_observation", { entityName: "Robert Smith", old: "runs the lab", new: "runs two labs" })).isError).toBeFalsy();
    expect(await provenanceOf(a, "Robert Smith")).toEqual([expect.objectContaining({ observation: "runs two labs", by: people[1]?.name })]);
    await close();
  });

  it("attributes imported observations to the import's caller, at the time of the import", async () => {
    const { ctx, people, clients, close } = await team(connect);
    const body = JSON.stringify({ type: "entity", name: "Imported", entityType: "t", observations: ["from a file"] });
    const res = await api(`/contexts/${ctx}/import`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body }, people[2]?.token);
    expect(res.status).toBe(200);
    const imported = (await changes(clients[0] as TestClient))[0];
    expect(imported).toMatchObject({ caller: people[2]?.name, tool: "api:import" });
    expect(await provenanceOf(clients[0] as TestClient, "Imported")).toEqual([{ observation: "from a file", by: people[2]?.name, at: imported?.at }]);
    await close();
  });

  it("gives recall's items the writer and time of their matched text", async () => {
    const { people, clients, close } = await team(connect);
    const [a, b] = clients as [TestClient, TestClient];
    await a.call("create_entities", { entities: [{ name: "Kiln", entityType: "tool", observations: ["the kiln fires at 1200 degrees"] }] });
    await b.call("create", { path: "/memories/kiln-notes.md", file_text: "kiln schedule: fire on fridays" });
    const items = json<{ items: { key: string; by?: string; at?: string }[] }>(await a.call("recall", { query: "kiln", provenance: true })).items;
    const [fileChange, entityChange] = (await changes(a)) as [Change, Change];
    expect(items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: "entity:Kiln", by: people[0]?.name, at: entityChange.at }),
        expect.objectContaining({ key: "file:memories/kiln-notes.md", by: people[1]?.name, at: fileChange.at }),
      ]),
    );
    const plain = json<{ items: Record<string, unknown>[] }>(await a.call("recall", { query: "kiln" })).items;
    expect(plain.every((i) => !("by" in i) && !("at" in i))).toBe(true);
    await close();
  });

  it("looks up the writer of an observation stored before observations kept it, gives it alongside superseded texts, and refuses it as of a past time", async () => {
    const { ctx, people, clients, close } = await team(connect);
    const [a] = clients as [TestClient];
    await a.call("create_entities", { entities: [{ name: "Old", entityType: "t", observations: ["written long ago"] }] });
    await runInDurableObject(stubOf(ctx), (_o, state) => void new Db(state.storage.sql).run("UPDATE observations SET written_by = NULL"));
    expect((await provenanceOf(a, "Old"))?.[0]?.by).toBe(people[0]?.name);

    // With superseded texts, the current observations keep their writers; the superseded one names none.
    await a.call("update_observation", { entityName: "Old", old: "written long ago", new: "rewritten today" });
    const both = json<{ entities: (Opened["entities"][number] & { superseded?: { text: string }[] })[] }>(
      await a.call("open_nodes", { names: ["Old"], provenance: true, includeSuperseded: true }),
    ).entities[0];
    expect(both?.provenance).toEqual([expect.objectContaining({ observation: "rewritten today", by: people[0]?.name })]);
    expect(both?.superseded).toEqual([expect.objectContaining({ text: "written long ago" })]);

    const refused = await a.call("open_nodes", { names: ["Old"], provenance: true, asOf: new Date().toISOString() });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("provenance shows who wrote the current observations");
    await close();
  });
});
