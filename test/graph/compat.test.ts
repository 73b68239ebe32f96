/**
 * One scripted session, with the outputs @modelcontextprotocol/server-memory
 * (2026.8.31) gives for it written down from its source and documentation,
 * run against engram through both SDK generations. Where engram is
 * deliberately stricter, the script says so.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, json } from "../helpers/clients";
import { registered } from "../helpers/context";

const alice = { name: "Alice", entityType: "person", observations: ["works at Acme", "likes tea"] };
const acme = { name: "Acme", entityType: "organization", observations: ["makes anvils"] };
const works = { from: "Alice", to: "Acme", relationType: "works_at" };

describe.each(CLIENTS)("compatibility with the official memory server (%s)", (_label, connect) => {
  it("names the entities create_entities skipped, whose observations it did not add, and points to add_observations", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("skip")}` });
    expect(json(await c.call("create_entities", { entities: [alice] }))).toEqual({ entities: [alice] });
    const again = { ...alice, observations: ["moved to Berlin"] };
    const bob = { name: "Bob", entityType: "person", observations: ["new"] };
    const r = json<{ entities: unknown[]; note?: string }>(await c.call("create_entities", { entities: [again, bob, { ...bob, observations: ["twice"] }] }));
    expect(r.entities).toEqual([bob]);
    expect(r.note).toBe(
      'Skipped 2 entities that already exist, and did not add their observations: "Alice", "Bob". Use add_observations to add observations to an existing entity.',
    );
    expect(json(await c.call("open_nodes", { names: ["Alice", "Bob"] }))).toMatchObject({ entities: [alice, bob] });
    // Nothing skipped, no note: the official shape exactly.
    expect(json(await c.call("create_entities", { entities: [acme] }))).toEqual({ entities: [acme] });
    await c.close();
  });

  it("creates a name that differs from an existing one only in letter case, as names are case-sensitive, and notes the existing one", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("case")}` });
    const maria = { name: "Maria Chen", entityType: "person", observations: ["leads payments"] };
    await c.call("create_entities", { entities: [maria, alice, acme, { name: "Bob", entityType: "person", observations: [] }] });
    const lower = { name: "maria chen", entityType: "person", observations: ["likes go"] };
    expect(json(await c.call("create_entities", { entities: [lower] }))).toEqual({
      entities: [lower],
      note: '"maria chen" differs only in letter case from the existing entity "Maria Chen". If they are the same thing, merge_entities{target: "Maria Chen", sources: ["maria chen"]} makes them one.',
    });
    expect(json<{ entities: unknown[] }>(await c.call("open_nodes", { names: ["Maria Chen", "maria chen"] })).entities).toEqual([maria, lower]);
    // A few at most, after the note on skipped names; a name that exists as given is skipped, with no case note.
    const some = ["ALICE", "acme", "BOB", "MARIA CHEN"].map((name) => ({ name, entityType: "t", observations: [] }));
    const r = json<{ entities: { name: string }[]; note: string }>(await c.call("create_entities", { entities: [alice, ...some] }));
    expect(r.entities.map((e) => e.name)).toEqual(["ALICE", "acme", "BOB", "MARIA CHEN"]);
    expect(r.note).toBe(
      'Skipped 1 entity that already exists, and did not add its observations: "Alice". Use add_observations to add observations to an existing entity. ' +
        'Created names that differ only in letter case from existing entities: "ALICE" (existing: "Alice"), "acme" (existing: "Acme"), "BOB" (existing: "Bob"), and more. ' +
        "If they are the same things, merge_entities folds each into the existing one.",
    );
    // "maria chen" exists as given now: skipped, and its variant "Maria Chen" is no news.
    expect(json<{ note: string }>(await c.call("create_entities", { entities: [lower] })).note).not.toContain("letter case");
    // Nothing that differs only in case, no note.
    expect(json(await c.call("create_entities", { entities: [{ name: "Carol", entityType: "person", observations: [] }] }))).toEqual({
      entities: [{ name: "Carol", entityType: "person", observations: [] }],
    });
    await c.close();
  });

  it("names the relations create_relations skipped, existing or given twice, and adds no note when it skipped none", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("skip")}` });
    await c.call("create_entities", { entities: [alice, acme] });
    const likes = { from: "Alice", to: "Acme", relationType: "likes" };
    expect(json(await c.call("create_relations", { relations: [works] }))).toEqual({ relations: [works] });
    expect(json(await c.call("create_relations", { relations: [works, likes, likes] }))).toEqual({
      relations: [likes],
      note: 'Skipped 2 relations that already exist: "Alice -works_at-> Acme", "Alice -likes-> Acme".',
    });
    const fresh = { from: "Acme", to: "Alice", relationType: "employs" };
    expect(json(await c.call("create_relations", { relations: [fresh] }))).toEqual({ relations: [fresh] });
    await c.close();
  });

  it("answers a scripted session as the official server does", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("compat")}` });

    // create_entities returns only the entities it created; an existing name is skipped (engram adds a note saying so).
    expect(json(await c.call("create_entities", { entities: [alice, acme] }))).toEqual({ entities: [alice, acme] });
    expect(json(await c.call("create_entities", { entities: [alice] }))).toEqual({ entities: [], note: expect.stringContaining('"Alice"') });

    // create_relations returns only new relations; an existing one is skipped (engram adds a note saying so, as for entities).
    expect(json(await c.call("create_relations", { relations: [works] }))).toEqual({ relations: [works] });
    expect(json(await c.call("create_relations", { relations: [works] }))).toEqual({
      relations: [],
      note: 'Skipped 1 relation that already exists: "Alice -works_at-> Acme".',
    });

    // add_observations returns per entity what was added, skipping existing observations.
    expect(json(await c.call("add_observations", { observations: [{ entityName: "Alice", contents: ["likes tea", "plays go"] }] }))).toEqual({
      results: [{ entityName: "Alice", addedObservations: ["plays go"] }],
    });

    // open_nodes returns relations with either end in the requested set.
    expect(json(await c.call("open_nodes", { names: ["Acme"] }))).toEqual({ entities: [acme], relations: [works] });

    // search_nodes matches names, types and observations case-insensitively, in the same shape. Unlike the
    // official server it ranks (docs/search.md): relations are those among the returned entities, so a
    // single hit comes alone; ask for both ends and the relation between them comes too.
    const found = json<{ entities: { name: string }[]; relations: unknown[] }>(await c.call("search_nodes", { query: "ANVIL" }));
    expect(found.entities.map((e) => e.name)).toEqual(["Acme"]);
    expect(found.relations).toEqual([]);
    const both = json<{ entities: { name: string }[]; relations: unknown[] }>(await c.call("search_nodes", { query: "anvils tea" }));
    expect(both.entities.map((e) => e.name).sort()).toEqual(["Acme", "Alice"]);
    expect(both.relations).toEqual([works]);

    // read_graph returns everything in insertion order.
    expect(json(await c.call("read_graph"))).toEqual({
      entities: [{ ...alice, observations: [...alice.observations, "plays go"] }, acme],
      relations: [works],
    });

    // delete_observations, delete_relations and delete_entities succeed with {success, message}.
    const delObs = await c.call("delete_observations", { deletions: [{ entityName: "Alice", observations: ["plays go"] }] });
    expect(delObs.structuredContent).toMatchObject({ success: true });
    const delRel = await c.call("delete_relations", { relations: [works] });
    expect(delRel.structuredContent).toMatchObject({ success: true });
    await c.call("create_relations", { relations: [works] });
    const delEnt = await c.call("delete_entities", { entityNames: ["Acme"] });
    expect(delEnt.structuredContent).toMatchObject({ success: true });

    // Deleting an entity removes its relations.
    expect(json(await c.call("read_graph"))).toEqual({ entities: [alice], relations: [] });

    // Stricter than the official server: a relation to a missing entity is rejected
    // (the official server stores it dangling) and the error names the missing entity.
    const dangling = await c.call("create_relations", { relations: [{ from: "Alice", to: "Nobody", relationType: "knows" }] });
    expect(dangling.isError).toBe(true);
    expect(dangling.content[0]?.text).toContain('"Nobody"');

    // Same as the official server: add_observations to a missing entity fails naming it.
    const missing = await c.call("add_observations", { observations: [{ entityName: "Ghost", contents: ["boo"] }] });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]?.text).toContain('"Ghost"');
    await c.close();
  });

  it("declares the official tools with the official annotations", async () => {
    const c = await connect({ url: `http://localhost/mcp/${await registered(freshContext("compat"))}` });
    const tools = new Map((await c.listTools()).map((t) => [t.name, t]));
    const expected: Record<string, [boolean, boolean, boolean]> = {
      create_entities: [false, false, false],
      create_relations: [false, false, false],
      add_observations: [false, false, false],
      delete_entities: [false, true, true],
      delete_observations: [false, true, true],
      delete_relations: [false, true, true],
      read_graph: [true, false, true],
      search_nodes: [true, false, true],
      open_nodes: [true, false, true],
    };
    for (const [name, [readOnly, destructive, idempotent]] of Object.entries(expected)) {
      const tool = tools.get(name);
      expect(tool, name).toBeDefined();
      // Hints read as MCP defines them: a missing one takes its default, and a read-only tool destroys nothing and is repeatable.
      const a = tool?.annotations ?? {};
      const read = a.readOnlyHint === true;
      expect([read, read ? false : (a.destructiveHint ?? true), read ? true : (a.idempotentHint ?? false)], name).toEqual([readOnly, destructive, idempotent]);
      expect(tool?.outputSchema, name).toBeDefined();
    }
    const resource = await c.readResource("memory://knowledge-graph");
    expect(JSON.parse(resource.contents[0]?.text ?? "{}")).toEqual({ entities: [], relations: [] });
    await c.close();
  });
});
