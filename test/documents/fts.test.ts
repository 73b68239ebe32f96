/**
 * The documents' full-text index is rewritten only when a document's text
 * changes: reading a document updates its priority columns (access
 * tracking), which must not delete and re-insert it in documents_fts
 * (migrations/0008_documents_fts_update.sql).
 */
import { describe, expect, it } from "vitest";
import { connectV2, freshContext, json, text } from "../helpers/clients";
import { update, withDb } from "../helpers/documents";

/** FTS5's own storage: every segment and structure record, so any rewrite of the index shows. */
const ftsStorage = (context: string) => withDb(context, (db) => db.all("SELECT id, hex(block) AS block FROM documents_fts_data ORDER BY id"));

describe("documents_fts", () => {
  it("is not rewritten by a read, and is by a content change", async () => {
    const context = freshContext("dfts");
    const c = await connectV2({ url: `http://localhost/mcp/${context}` });
    await update(c, "root", "# Notes\n[[ops]]");
    await update(c, "ops", "# Operations\nDeploys run through CI.");
    const before = await ftsStorage(context);

    const read = await c.call("read_document", { id: "ops" });
    expect(read.isError, text(read)).toBeFalsy();
    expect(await withDb(context, (db) => db.one("SELECT access_count FROM documents WHERE id = 'ops'"))).toEqual({ access_count: 1 });
    expect(await ftsStorage(context)).toEqual(before);

    await update(c, "ops", "# Operations\nReleases go out on Tuesday.");
    expect(await ftsStorage(context)).not.toEqual(before);
    const hits = json<{ results: { id: string }[] }>(await c.call("search_documents", { query: "tuesday" })).results;
    expect(hits.map((h) => h.id)).toEqual(["ops"]);
    expect(json<{ results: unknown[] }>(await c.call("search_documents", { query: "deploys" })).results).toEqual([]);
    await c.close();
  });
});
