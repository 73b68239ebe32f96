/**
 * Every tool result names the memory context it acted on, or the one it
 * aimed at when it was refused: `[context: <name>]`, the result's last
 * line, after the answer and any note.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, json, type TestClient, type ToolResult } from "../helpers/clients";
import { registered } from "../helpers/context";
import { ADMIN, connectAs, createContext, mint } from "../helpers/teams";

const lineOf = (r: ToolResult) => r.content.filter((c) => /^\[context: /.test(c.text ?? "")).map((c) => c.text);

async function active(c: TestClient): Promise<string> {
  return json<{ name: string }>(await c.call("get_active_context")).name;
}

describe.each(CLIENTS)("the context line on every result (%s client)", (_label, connect) => {
  it("is on a success and on a domain failure alike", async () => {
    const context = await registered(freshContext("line"));
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    const ok = await c.call("read_graph");
    expect(ok.isError).toBeFalsy();
    expect(lineOf(ok)).toEqual([`[context: ${context}]`]);
    const failed = await c.call("add_observations", { observations: [{ entityName: "ghost", contents: ["x"] }] });
    expect(failed.isError).toBe(true);
    expect(lineOf(failed)).toEqual([`[context: ${context}]`]);
    await c.close();
  });

  it("names the pinned context when a call is refused before reaching it", async () => {
    const context = freshContext("line");
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    for (const [tool, args] of [
      ["read_graph", { context: "elsewhere" }], // a pinned endpoint refuses another context
      ["create_entities", { entities: "not a list" }], // bad arguments
      ["undo", { change: 1, count: 1 }], // a rule the tool checks itself
    ] as const) {
      const r = await c.call(tool, args);
      expect(r.isError, tool).toBe(true);
      expect(lineOf(r), tool).toEqual([`[context: ${context}]`]);
    }
    await c.close();
  });

  it("names the context argument or, without a valid one, the active context on /mcp", async () => {
    const c = await connect();
    const current = await active(c);
    const named = freshContext("line");
    const badArgs = await c.call("create_entities", { entities: [{ name: "" }], context: named });
    expect(badArgs.isError).toBe(true);
    expect(lineOf(badArgs)).toEqual([`[context: ${named}]`]);
    const badName = await c.call("read_graph", { context: "Not A Name!" });
    expect(badName.isError).toBe(true);
    expect(lineOf(badName)).toEqual([`[context: ${current}]`]);
    const contextsTool = await c.call("remove_context", { name: "default" });
    expect(contextsTool.isError).toBe(true);
    expect(lineOf(contextsTool)).toEqual([`[context: ${current}]`]);
    await c.close();
  });

  it("comes last, after the note that the removed active context fell back to the default", async () => {
    const ctx = freshContext("line");
    await createContext(ctx);
    const client = await connectAs(connect, (await mint([{ context: "*", role: "write" }])).token);
    await client.call("set_active_context", { name: ctx });
    const admin = await connectAs(connect, ADMIN);
    expect((await admin.call("remove_context", { name: ctx })).isError).toBeFalsy();
    const r = await client.call("read_graph");
    expect(r.isError).toBeFalsy();
    const texts = r.content.map((c) => c.text ?? "");
    expect(texts.at(-2)).toContain(`your active context "${ctx}" was removed, so this call used "default"`);
    expect(texts.at(-1)).toBe("[context: default]");
    expect(lineOf(r)).toEqual(["[context: default]"]);
    for (const c of [client, admin]) await c.close();
  });

  it("names the context a caller may not open", async () => {
    const theirs = freshContext("line");
    await createContext(theirs);
    const client = await connectAs(connect, (await mint([{ context: "mine-*", role: "write" }])).token);
    const r = await client.call("read_graph", { context: theirs });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toContain("Forbidden");
    expect(lineOf(r)).toEqual([`[context: ${theirs}]`]);
    await client.close();
  });
});
