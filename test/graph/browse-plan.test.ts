/**
 * Browsing entities stays fast at any size: every page the Entities tab
 * reads (each sort, with and without a type filter, first page, next and
 * previous) is answered by walking an index in order, never by sorting the
 * table. Checked with EXPLAIN QUERY PLAN on the statements browseEntities
 * runs (src/graph/browse.ts).
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { ENTITY_SORTS, pageStatement, type Cursor } from "../../src/graph/browse";
import { Db } from "../../src/storage/sql";
import { as, registered, stubOf, unwrap } from "../helpers/context";
import { freshContext } from "../helpers/clients";

const KEYS: Record<string, Cursor["k"]> = { name: ["m", 5], updated: [1_700_000_000_000, 5], priority: [0, 1.5, 5] };

describe("entity browsing plans", () => {
  it("reads every page of every sort, with and without a type, from an index in order, never a sort of the table", async () => {
    const stub = stubOf(await registered(freshContext("browseplan")));
    unwrap(
      await stub.createEntities(
        Array.from({ length: 40 }, (_, i) => ({ name: `n${i}`, entityType: i % 2 ? "a" : "b", observations: [] })),
        as("t"),
      ),
    );
    await runInDurableObject(stub, (_instance: MemoryContext, state) => {
      const db = new Db(state.storage.sql);
      db.run("ANALYZE");
      for (const sort of ENTITY_SORTS) {
        for (const type of [undefined, "a"]) {
          for (const cursor of [undefined, { k: KEYS[sort] ?? [], d: "n" as const }, { k: KEYS[sort] ?? [], d: "p" as const }]) {
            const { query, params } = pageStatement(sort, type, cursor, 50);
            const plan = db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`, ...params).map((r) => r.detail);
            const what = `${sort} ${type ?? "all"} ${cursor?.d ?? "first"}: ${plan.join(" | ")}`;
            expect(
              plan.some((d) => /TEMP B-TREE/.test(d)),
              what,
            ).toBe(false);
            expect(
              plan.find((d) => /\b(entities|e)\b/.test(d) && /^(SCAN|SEARCH)/.test(d)),
              what,
            ).toMatch(/USING (COVERING )?INDEX/);
          }
        }
      }
    });
  });
});
