/**
 * Property: on random graphs (entities, observations, relations, self-loops,
 * use statistics, marks, co-visitation, earlier merges' aliases), a
 * merge_entities followed by its undo leaves every row exactly as it was:
 * entities with their ids, times and statistics, observations, relations,
 * aliases, co-visitation counts and session entries, and the search index
 * finds what it found before.
 */
import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL } from "../../src/priority/model";
import { refreshClusters } from "../../src/priority/promote";
import { searchGraph, searchParams } from "../../src/search";
import { parseQuery } from "../../src/search/query";
import { settings } from "../../src/settings";
import { Db } from "../../src/storage/sql";
import { freshContext } from "../helpers/clients";
import { as, registered, stubOf, unwrap } from "../helpers/context";

const NAMES = ["Acme", "ACME Corp", "acme inc", "Wile", "Road Runner", "Beep"];
const OBS = ["anvils", "rockets", "Phoenix", "desert", "fast"];

const graphArb = fc.record({
  entities: fc.uniqueArray(
    fc.record({
      name: fc.constantFrom(...NAMES),
      entityType: fc.constantFrom("company", "animal"),
      observations: fc.uniqueArray(fc.constantFrom(...OBS), { maxLength: 3 }),
    }),
    { minLength: 2, maxLength: 6, selector: (e) => e.name },
  ),
  relations: fc.array(fc.record({ from: fc.nat(5), to: fc.nat(5), relationType: fc.constantFrom("knows", "sues") }), { maxLength: 8 }),
  opens: fc.array(fc.uniqueArray(fc.nat(5), { minLength: 1, maxLength: 3 }), { maxLength: 4 }),
  marked: fc.option(fc.nat(5)),
  earlier: fc.option(fc.tuple(fc.nat(5), fc.nat(5))),
  merge: fc.tuple(fc.nat(5), fc.uniqueArray(fc.nat(5), { minLength: 1, maxLength: 3 })),
});

async function rows(ctx: string) {
  return runInDurableObject(stubOf(ctx), (_o, state) => {
    const db = new Db(state.storage.sql);
    const params = searchParams({}, settings(env));
    return {
      entities: db.all("SELECT * FROM entities ORDER BY id"),
      observations: db.all("SELECT * FROM observations ORDER BY id"),
      relations: db.all("SELECT * FROM relations ORDER BY id"),
      aliases: db.all("SELECT * FROM entity_aliases ORDER BY alias"),
      pairs: db.all("SELECT * FROM covisit_pairs ORDER BY item, other"),
      sessionItems: db.all("SELECT * FROM covisit_session_items ORDER BY session_id, item"),
      search: OBS.map((q) =>
        searchGraph(db, parseQuery(q), params, 0)
          .entities.map((e) => e.name)
          .sort(),
      ),
    };
  });
}

/**
 * cluster_size is a cache the runner re-counts for both ends of every
 * relation a call writes (src/priority/promote.ts), an undo's included; an
 * entity nobody related or read since the last change may hold a stale
 * count. The property starts from counted clusters, as an undo leaves them.
 */
async function countClusters(ctx: string) {
  await runInDurableObject(stubOf(ctx), (_o, state) => {
    const db = new Db(state.storage.sql);
    const refs = db.all<{ name: string }>("SELECT name FROM entities").map((r) => ({ key: `entity:${r.name}`, kind: "entity" as const, name: r.name }));
    state.storage.transactionSync(() => refreshClusters(db, refs, DEFAULT_MODEL));
  });
}

describe("property: merge then undo", () => {
  it("restores every entity, observation, relation, alias, statistic and co-visitation count exactly", async () => {
    await fc.assert(
      fc.asyncProperty(graphArb, async (drawn) => {
        // Plain objects: fast-check's records have no prototype, which RPC cannot send.
        const g = JSON.parse(JSON.stringify(drawn)) as typeof drawn;
        const ctx = await registered(freshContext("mprop"));
        const stub = stubOf(ctx);
        const me = as("local");
        const names = g.entities.map((e) => e.name);
        const at = (i: number) => names[i % names.length] as string;
        unwrap(await stub.createEntities(g.entities, me));
        unwrap(
          await stub.createRelations(
            g.relations.map((r) => ({ from: at(r.from), to: at(r.to), relationType: r.relationType })),
            me,
          ),
        );
        for (const o of g.opens) unwrap(await stub.openNodes([...new Set(o.map(at))], me));
        if (g.marked !== null) unwrap(await stub.markImportant([`entity:${at(g.marked)}`], true, me));
        let live = names;
        if (g.earlier !== null && at(g.earlier[0]) !== at(g.earlier[1]) && names.length > 2) {
          unwrap(await stub.mergeEntities(at(g.earlier[0]), [at(g.earlier[1])], me));
          live = names.filter((n) => n !== at(g.earlier?.[1] ?? 0));
        }
        const target = live[g.merge[0] % live.length] as string;
        const sources = [...new Set(g.merge[1].map((i) => live[i % live.length] as string))].filter((n) => n !== target);
        fc.pre(sources.length > 0);
        await countClusters(ctx);
        const before = await rows(ctx);
        const merged = unwrap(await stub.mergeEntities(target, sources, me));
        const after = await rows(ctx);
        // The merge did what it says: sources gone, names now aliases of the target, observations unioned, no self-loop made.
        expect(after.entities.map((e) => e.name)).toEqual(before.entities.map((e) => e.name).filter((n) => !sources.includes(n as string)));
        const targetId = before.entities.find((e) => e.name === target)?.id;
        for (const s of sources) expect(after.aliases.find((a) => a.alias === s)?.entity_id).toBe(targetId);
        const obsOf = (r: typeof before, ids: unknown[]) => new Set(r.observations.filter((o) => ids.includes(o.entity_id)).map((o) => o.content));
        const sourceIds = before.entities.filter((e) => sources.includes(e.name as string)).map((e) => e.id);
        expect(obsOf(after, [targetId])).toEqual(obsOf(before, [targetId, ...sourceIds]));
        const loopsBefore = before.relations.filter((r) => r.from_id === targetId && r.to_id === targetId).length;
        expect(after.relations.filter((r) => r.from_id === r.to_id && r.from_id === targetId)).toHaveLength(loopsBefore);
        unwrap(await stub.undo({ change: merged.change }, me));
        expect(await rows(ctx)).toEqual(before);
      }),
      { numRuns: 25 },
    );
  });
});
