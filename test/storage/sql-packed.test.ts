/**
 * Db.packed returns what Db.all returns for the same query: rows packed
 * into one JSON text by SQLite come back with the same values, in order.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Db, JSON_PARAM_BYTES, jsonBatches, SqlError } from "../../src/storage/sql";
import { freshContext } from "../helpers/clients";
import { stubOf } from "../helpers/context";

const inObject = <T>(fn: (db: Db) => T) => runInDurableObject(stubOf(freshContext("packed")), (_i, state) => fn(new Db(state.storage.sql)));

describe("Db.packed and Db.tuples", () => {
  it("returns the same rows as Db.all: integers, exact reals, text with escapes, NULL", async () => {
    const { all, packed, tuples } = await inObject((db) => {
      db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, r REAL, s TEXT, n INTEGER)");
      const values: [number, number | null, string | null, number | null][] = [
        [1, 0.1, "plain", 7],
        [2, 1 / 3, 'quote " backslash \\ newline \n tab \t', null],
        [3, -1e300, "日本語 ünïcode 😀", 2 ** 53 - 1],
        [4, null, null, -42],
        [5, 123456789.12345679, "", 0],
      ];
      for (const v of values) db.run("INSERT INTO t VALUES (?, ?, ?, ?)", ...v);
      const query = "SELECT id, r, s, n FROM t ORDER BY id DESC";
      return { all: db.all(query), packed: db.packed(["id", "r", "s", "n"], query), tuples: db.tuples(["id", "r", "s", "n"], query) };
    });
    expect(packed).toEqual(all);
    expect(tuples).toEqual(all.map((r) => [r.id, r.r, r.s, r.n]));
    expect(packed.map((r) => r.id)).toEqual([5, 4, 3, 2, 1]);
  });

  it("orders by `order` whatever order the query yields, and returns [] for no rows", async () => {
    const { ordered, none } = await inObject((db) => {
      db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, k INTEGER)");
      for (const [id, k] of [
        [1, 30],
        [2, 10],
        [3, 20],
      ])
        db.run("INSERT INTO t VALUES (?, ?)", id as number, k as number);
      return {
        ordered: db.packed<{ id: number }>(["id"], "SELECT id, k FROM t", [], "k").map((r) => r.id),
        none: db.packed(["id"], "SELECT id FROM t WHERE id > ?1", [99]),
      };
    });
    expect(ordered).toEqual([2, 3, 1]);
    expect(none).toEqual([]);
  });

  it("fails on a column the query does not have, never answering with the column's name as text", async () => {
    const outcome = await inObject((db) => {
      db.run("CREATE TABLE t (id INTEGER PRIMARY KEY)");
      db.run("INSERT INTO t VALUES (1)");
      try {
        return JSON.stringify(db.tuples(["id", "idd"], "SELECT id FROM t"));
      } catch (error) {
        return error instanceof SqlError ? "SqlError" : String(error);
      }
    });
    expect(outcome).toBe("SqlError");
  });

  it("reports a failing statement with its query, as Db.all does", async () => {
    const message = await inObject((db) => {
      try {
        db.packed(["x"], "SELECT x FROM no_such_table");
        return "no error";
      } catch (error) {
        return error instanceof SqlError ? error.message : `not an SqlError: ${String(error)}`;
      }
    });
    expect(message).toMatch(/no such table: no_such_table.* in: SELECT x FROM no_such_table/);
  });
});

describe("jsonBatches", () => {
  it("gives rows that fit one parameter as one JSON array, and none for no rows", () => {
    const rows = [
      [1, 'a "quoted" text'],
      [2, "日本語"],
    ];
    expect(jsonBatches(rows)).toEqual([JSON.stringify(rows)]);
    expect(jsonBatches([])).toEqual([]);
  });

  it("splits larger rows into arrays of at most JSON_PARAM_BYTES, in order", () => {
    const rows = Array.from({ length: 3000 }, (_, i) => [i, (i % 2 ? "x" : "é").repeat(500)]);
    const batches = jsonBatches(rows);
    expect(batches.length).toBeGreaterThan(1);
    for (const b of batches) expect(new TextEncoder().encode(b).length).toBeLessThanOrEqual(JSON_PARAM_BYTES);
    expect(batches.flatMap((b) => JSON.parse(b) as unknown[])).toEqual(rows);
  });
});
