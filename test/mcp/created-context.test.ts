/**
 * A write to a context name nobody registered creates it (open local mode, or
 * a grant with `+create`), and the result says so, so a mistyped name is seen;
 * a write to a removed one revives it, and says that.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, text } from "../helpers/clients";
import { connectAs, mint } from "../helpers/teams";

const ent = (name: string) => ({ name, entityType: "thing", observations: [] });
const said = (name: string) => `Note: created context "${name}"`;

describe.each(CLIENTS)("a write that creates its context (%s)", (_label, connect) => {
  it("says it created the mistyped context, once, before the context line, and a read of such a name creates nothing", async () => {
    const typo = freshContext("defualt");
    const c = await connect();
    const read = await c.call("read_graph", { context: typo });
    expect(read.isError).toBe(true);
    expect(text(read)).toContain("does not exist");

    const first = await c.call("create_entities", { context: typo, entities: [ent("a")] });
    expect(first.isError, text(first)).toBeFalsy();
    expect(text(first)).toContain(said(typo));
    expect(first.content.at(-1)?.text).toBe(`[context: ${typo}]`);
    expect(first.structuredContent).toEqual({ entities: [ent("a")] });

    const second = await c.call("create_entities", { context: typo, entities: [ent("b")] });
    expect(text(second)).not.toContain("created context");
    const listed = await c.call("list_contexts");
    expect(text(listed)).toContain(typo);
    await c.close();
  });

  it("says a write to a removed context revived it with its data, not that it created it", async () => {
    const gone = freshContext("gone");
    const c = await connect();
    await c.call("create_entities", { context: gone, entities: [ent("a")] });
    expect((await c.call("remove_context", { name: gone })).isError).toBeFalsy();
    const back = await c.call("create_entities", { context: gone, entities: [ent("b")] });
    expect(text(back)).toContain(`Note: revived context "${gone}": it had been removed, and this write registered it again, with the data it held.`);
    expect(text(back)).not.toContain("created context");
    expect(back.content.at(-1)?.text).toBe(`[context: ${gone}]`);
    expect((await c.call("read_graph", { context: gone })).structuredContent).toMatchObject({ entities: [ent("a"), ent("b")] });
    await c.close();
  });

  it("says so on a pinned URL, and for a token whose grant may create contexts", async () => {
    const pinned = freshContext("pinned");
    const c = await connect({ url: `http://localhost/mcp/${pinned}` });
    expect(text(await c.call("create", { path: "a.md", file_text: "x" }))).toContain(said(pinned));
    await c.close();

    const prefix = freshContext("team");
    const { token } = await mint([{ context: `${prefix}-*`, role: "write", create: true }]);
    const t = await connectAs(connect, token);
    const made = `${prefix}-new`;
    expect(text(await t.call("create_entities", { context: made, entities: [ent("a")] }))).toContain(said(made));
    await t.close();
  });
});
