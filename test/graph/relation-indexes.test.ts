/**
 * Every read of relations by their `to_id` end is answered from an index.
 * migrations/0017_load_indexes.sql dropped relations_by_to (to_id), a prefix
 * of search_relations_by_to (to_id, from_id); these are the shapes of the
 * statements that read relations that way (src/graph, src/search,
 * src/priority), checked with EXPLAIN QUERY PLAN.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { RELATION_SELECT } from "../../src/graph/rows";
import { Db } from "../../src/storage/sql";
import { as, registered, stubOf, unwrap } from "../helpers/context";
import { freshContext } from "../helpers/clients";

const BY_TO: Record<string, string> = {
  "open_nodes' relations (relationsTouching)": `${RELATION_SELECT} WHERE r.from_id IN (?1, ?2) OR r.to_id IN (?1, ?2) ORDER BY r.id LIMIT 1001`,
  "deleting an entity: its relations": `${RELATION_SELECT} WHERE r.from_id = ?1 OR r.to_id = ?1 ORDER BY r.id`,
  "deleting an entity: the delete": "DELETE FROM relations WHERE from_id = ?1 OR to_id = ?1",
  "the foreign key's cascade from entities(id)": "SELECT 1 FROM relations WHERE to_id = ?1",
  "as-of reads (loadRelations)": `${RELATION_SELECT} WHERE r.to_id IN (SELECT value FROM json_each(?1))`,
  "the graph walk's step": `SELECT to_id AS a, from_id AS b FROM relations WHERE to_id IN (SELECT value FROM json_each(?1))`,
  "duplicates' neighbourhoods": `SELECT from_id, to_id FROM relations WHERE from_id IN (SELECT value FROM json_each(?1))
    UNION SELECT from_id, to_id FROM relations WHERE to_id IN (SELECT value FROM json_each(?1))`,
  "the search index's degree count": `SELECT (SELECT count(*) FROM relations r WHERE r.from_id = e.id) + (SELECT count(*) FROM relations r WHERE r.to_id = e.id)
    FROM entities e WHERE e.id = ?1`,
  "a cluster's incoming neighbours": `SELECT (SELECT json_group_array(y.id) FROM (
      SELECT DISTINCT r.from_id AS id FROM relations r WHERE r.to_id = e.id AND r.from_id != e.id LIMIT 64) y)
    FROM entities e WHERE e.id = ?1`,
};

describe("relation indexes", () => {
  it("keeps one index led by to_id, and every read by to_id uses an index, never a scan", async () => {
    const context = await registered(freshContext("relidx"));
    const stub = stubOf(context);
    const names = Array.from({ length: 30 }, (_, i) => `n${i}`);
    unwrap(
      await stub.createEntities(
        names.map((name) => ({ name, entityType: "node", observations: [] })),
        as("t"),
      ),
    );
    unwrap(
      await stub.createRelations(
        names.slice(1).map((to, i) => ({ from: names[i] as string, to, relationType: "next" })),
        as("t"),
      ),
    );
    await runInDurableObject(stub, (_instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      const ledByTo = db
        .all<{ name: string }>("SELECT name FROM pragma_index_list('relations')")
        .map((i) => i.name)
        .filter((index) => db.one<{ name: string }>("SELECT name FROM pragma_index_info(?) WHERE seqno = 0", index)?.name === "to_id");
      expect(ledByTo).toEqual(["search_relations_by_to"]);
      for (const [what, query] of Object.entries(BY_TO)) {
        const params = ["[1, 2]", 2].slice(0, query.includes("?2") ? 2 : 1);
        const plan = db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, ...params).map((r) => r.detail);
        const onRelations = plan.filter((d) => /\b(relations|r)\b/.test(d) && /^(SCAN|SEARCH)/.test(d));
        expect(onRelations.length, what).toBeGreaterThan(0);
        for (const step of onRelations) expect(step, `${what}: ${plan.join(" | ")}`).toMatch(/^SEARCH .*USING (COVERING )?INDEX \S+ \((to_id|from_id)=\?\)/);
      }
    });
  });
});
