/**
 * Reads of the documents change nothing: before the first write, the root is
 * the configured template, served without being stored, to a read-grant
 * token on a read-only context as to anyone. The first write stores it.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, text } from "../helpers/clients";
import { changesOf, exportText, registered } from "../helpers/context";
import { withDb } from "../helpers/documents";
import { connectAs, createContext, mint } from "../helpers/teams";

/** Every stored document row and the number of changes recorded. */
const stored = async (context: string) => ({
  documents: await withDb(context, (db) => db.all<{ id: string }>("SELECT id FROM documents ORDER BY id")),
  changes: (await changesOf(context)).length,
  exported: await exportText(context, true),
});

describe.each(CLIENTS)("document reads (%s)", (_label, connect) => {
  it("serve the root template to a read-grant token on a read-only context and store nothing", async () => {
    const context = freshContext("ro-doc");
    await createContext(context, { readOnly: true });
    const { token } = await mint([{ context, role: "read" }]);
    const c = await connectAs(connect, token, `/mcp/${context}`);
    const before = await stored(context);
    expect(before).toEqual({ documents: [], changes: 0, exported: "" });

    const read = await c.call("read_document", {});
    expect(read.isError, text(read)).toBeFalsy();
    expect(read.structuredContent).toMatchObject({ id: "root", content: "# メモ帳\n" });
    const tree = await c.call("get_document_tree", {});
    expect(tree.isError, text(tree)).toBeFalsy();
    expect(text(tree)).toContain("root");
    const search = await c.call("search_documents", { query: "メモ帳" });
    expect(search.isError, text(search)).toBeFalsy();
    const resource = await c.readResource("memory://doc/root");
    expect(resource.contents[0]?.text).toContain("# メモ帳");

    expect(await stored(context)).toEqual(before);
    await c.close();
  });

  it("store the root on the first write, as one recorded change that undo reverts", async () => {
    const context = await registered(freshContext("first-doc"));
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    expect((await c.call("read_document", {})).content[0]?.text).toBe("# メモ帳\n");
    expect((await stored(context)).documents).toEqual([]);

    const r = await c.call("update_document", { content: "# メモ帳\n\n[[plan]]\n" });
    expect(r.isError, text(r)).toBeFalsy();
    const after = await stored(context);
    expect(after.documents.map((d) => d.id)).toEqual(["plan", "root"]);
    expect(after.changes).toBe(1);
    expect((await c.call("undo", {})).isError).toBeFalsy();
    expect(await c.call("read_document", {}).then(text)).toContain("# メモ帳");
    expect(await c.call("read_document", { id: "plan" }).then((x) => x.isError)).toBe(true);
    await c.close();
  });
});
