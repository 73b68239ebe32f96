/**
 * The import's rule (docs/operations.md#import-and-export): every good line
 * is applied, every bad line is rejected with its number and reason, and the
 * answer counts exactly what was written, also when a line fails only while
 * its batch is being applied.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { Db } from "../../src/storage/sql";
import type { ImportItem } from "../../src/graph/import";
import { freshContext, workerFetch } from "../helpers/clients";
import { as, changesOf, exportText, stubOf } from "../helpers/context";
import { rows } from "../helpers/priority";

const f = workerFetch();
const base = "http://localhost/api/contexts";

type Report = Record<string, unknown> & { rejected: { line: number; error: string }[] };

async function importText(context: string, body: string, query = "") {
  const res = await f(`${base}/${context}/import${query}`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body });
  return { status: res.status, body: (await res.json()) as Report & { error?: string; message?: string; partial?: Report } };
}

const entityLine = (name: string) => JSON.stringify({ type: "entity", name, entityType: "t", observations: [`about ${name}`] });
// A lone surrogate passes the line's JSON and field checks, but the name is stored altered (U+FFFD), so it
// cannot be found again by the name given: applying the line fails inside its batch.
const LONE_SURROGATE = "Dup\ud800";

const entityCount = async (context: string) => (await rows(stubOf(context), "SELECT COUNT(*) AS n FROM entities"))[0]?.n;

describe("a line that fails while its batch is applied", () => {
  it("is rejected with its number while every good line before and after it is written and counted", async () => {
    const ctx = freshContext("imp");
    const lines = [
      ...Array.from({ length: 1500 }, (_, i) => entityLine(`a${i}`)),
      entityLine(LONE_SURROGATE),
      ...Array.from({ length: 100 }, (_, i) => entityLine(`b${i}`)),
    ];
    const { status, body } = await importText(ctx, lines.join("\n"));
    expect(status).toBe(200);
    expect(body).toEqual({
      entitiesCreated: 1600,
      entitiesMerged: 0,
      observationsAdded: 1600,
      relationsCreated: 0,
      duplicates: 0,
      archivedAdded: 0,
      rejected: [{ line: 1501, error: expect.stringContaining("name") }],
    });
    expect(await entityCount(ctx)).toBe(1600);
    // Nothing of the bad line is left behind, not even the altered name.
    expect(await rows(stubOf(ctx), "SELECT name FROM entities WHERE name LIKE 'Dup%'")).toEqual([]);
    const exported = (await exportText(ctx)).split("\n").filter(Boolean);
    expect(exported.sort()).toEqual(lines.filter((_, i) => i !== 1500).sort());
  });

  it("leaves the lines around it in one batch applied and recorded, relations included", async () => {
    const ctx = freshContext("imp");
    const item = (line: number, name: string): ImportItem => ({ line, type: "entity", entity: { name, entityType: "t", observations: ["o"] } });
    const items: ImportItem[] = [
      item(1, "x"),
      item(2, LONE_SURROGATE),
      item(3, "y"),
      item(4, `${LONE_SURROGATE}2`),
      item(5, `${LONE_SURROGATE}3`),
      item(6, "z"),
      { line: 7, type: "relation", relation: { from: "x", to: "z", relationType: "knows" } },
    ];
    const { report, stopped } = await stubOf(ctx).importBatch(items, as("importer", "api:import"));
    expect(stopped).toBeUndefined();
    expect(report).toMatchObject({ entitiesCreated: 3, observationsAdded: 3, relationsCreated: 1, duplicates: 0 });
    expect(report.rejected.map((r) => r.line)).toEqual([2, 4, 5]);
    expect(await rows(stubOf(ctx), "SELECT name FROM entities ORDER BY id")).toEqual([{ name: "x" }, { name: "y" }, { name: "z" }]);
    // Every written row is in a change record, so undo can take the import back.
    expect(await rows(stubOf(ctx), "SELECT DISTINCT item FROM change_items ORDER BY item")).toEqual([
      { item: "entity:x" },
      { item: "entity:y" },
      { item: "entity:z" },
    ]);
    const changes = await changesOf(ctx);
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((c) => c.caller === "importer" && c.tool === "api:import")).toBe(true);
  });
});

describe("an import that stops part-way", () => {
  it("answers with the line it stopped at and exactly what was written before, and logs the internal error unseen", async () => {
    const ctx = freshContext("imp");
    // An internal error (not a line's fault) while line 1501 is applied, in the second batch: injected with a SQLite trigger.
    await runInDurableObject(stubOf(ctx), (_i, state) => {
      new Db(state.storage.sql).run(
        "CREATE TRIGGER inject_fault BEFORE INSERT ON entities WHEN NEW.name = 'n1500' BEGIN SELECT RAISE(ABORT, 'injected fault'); END",
      );
    });
    const lines = Array.from({ length: 2000 }, (_, i) => entityLine(i === 9 ? LONE_SURROGATE : `n${i}`));
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { status, body } = await importText(ctx, lines.join("\n"));
    const logs = logged.mock.calls.map((args) => String(args[0]));
    logged.mockRestore();
    expect(status).toBe(500);
    expect(body).toEqual({
      error: "internal_error",
      message: expect.stringMatching(
        /^The import stopped at line 1501: Internal error \(ref [0-9a-f]{8}\)\. `partial` counts exactly what was written \(nothing else was\), and lists the rejected lines\. Importing the same file again is safe: what is already there counts as duplicates\.$/,
      ),
      partial: {
        entitiesCreated: 1000,
        entitiesMerged: 0,
        observationsAdded: 1000,
        relationsCreated: 0,
        duplicates: 0,
        archivedAdded: 0,
        rejected: [{ line: 10, error: expect.stringContaining("name") }],
      },
    });
    // The runner logged the fault once, under the reference the answer gives.
    const ref = /\(ref ([0-9a-f]{8})\)/.exec((body as { message: string }).message)?.[1];
    expect(logs).toEqual([expect.stringMatching(new RegExp(`"event":"internal_error","ref":"${ref}".*injected fault`))]);
    // The parser rejects the bad line 10 before batching, so the first batch is 1,000 good lines and is written whole; the second, where it stopped, is not.
    expect(await entityCount(ctx)).toBe(1000);
  });
});

describe("a request the server refuses as a whole", () => {
  it("says nothing was written, and nothing was", async () => {
    const ctx = freshContext("imp");
    const { status, body } = await importText(ctx, entityLine("a"), "?firstLine=0");
    expect(status).toBe(400);
    expect(body).toEqual({ error: "invalid", message: "firstLine must be a positive integer; nothing was written." });
    expect(await entityCount(ctx)).toBe(0);
  });
});
