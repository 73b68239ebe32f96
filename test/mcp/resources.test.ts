/**
 * The resources through real clients of both SDK generations: the brief,
 * the item templates (a read counts as a use), paging resources/list with a
 * cursor, a missing item as the SDK's resource-not-found error, and only
 * what the connection's toolsets serve.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { Db } from "../../src/storage/sql";
import { CLIENTS, freshContext, rejection } from "../helpers/clients";
import { registered, stubOf, unwrap } from "../helpers/context";

type Connect = (typeof CLIENTS)[number][1];

async function seeded(connect: Connect, tools = "all") {
  const context = await registered(freshContext("res"));
  const c = await connect({ url: `http://localhost/mcp/${context}?tools=${tools}` });
  return { c, context };
}

/** The error a rejected request throws, as { code, message, data }. */

describe.each(CLIENTS)("resources, with %s client", (_label, connect) => {
  it("reads an entity, a file and a document through their templates, and each read counts as a use", async () => {
    const { c, context } = await seeded(connect);
    await c.call("create_entities", { entities: [{ name: "Ada Lovelace", entityType: "person", observations: ["Leads billing"] }] });
    await c.call("create", { path: "notes/plan.md", file_text: "step one\nstep two" });
    await c.call("update_document", { id: "root", content: "# Root\n\nThe plan." });

    const entity = await c.readResource("memory://entity/Ada%20Lovelace");
    expect(JSON.parse(entity.contents[0]?.text ?? "{}")).toMatchObject({ entities: [{ name: "Ada Lovelace", observations: ["Leads billing"] }] });
    const file = await c.readResource("memory://file/notes/plan.md");
    expect(file.contents[0]?.text).toContain("step two");
    const doc = await c.readResource("memory://doc/root");
    expect(doc.contents[0]?.text).toContain("The plan.");

    const [stats] = unwrap(await stubOf(context).entityStats(["Ada Lovelace"]));
    expect(stats?.accessCount).toBe(1);
    await c.close();
  });

  it("answers a missing item with resource-not-found naming the URI", async () => {
    const { c } = await seeded(connect);
    await c.call("create_entities", { entities: [{ name: "present", entityType: "t", observations: [] }] });
    for (const uri of ["memory://entity/absent", "memory://file/no/such.md", "memory://doc/nothing-here"]) {
      const e = await rejection(c.readResource(uri));
      expect(e.code, uri).toBe(-32602);
      expect(e.data, uri).toEqual({ uri });
      expect(e.message, uri).toContain("not found");
    }
    await c.close();
  });

  it("keeps the brief within its budget and lists the marked items first", async () => {
    const { c } = await seeded(connect);
    await c.call("create_entities", {
      entities: [
        { name: "plain", entityType: "t", observations: ["ordinary"] },
        { name: "Key Decision", entityType: "decision", observations: ["We use SQLite"] },
      ],
    });
    await c.call("mark_important", { items: ["entity:Key Decision"], important: true });
    const brief = await c.readResource("memory://brief");
    const text = brief.contents[0]?.text ?? "";
    expect(text.indexOf("Key Decision")).toBeGreaterThan(0);
    expect(text.indexOf("Key Decision")).toBeLessThan(text.indexOf('"plain"'));
    expect(text).toMatch(/## Marked important/);
    expect(text.length / 4).toBeLessThanOrEqual(1500);
    await c.close();
  });

  it("pages resources/list with a cursor through the brief and every item, each once", async () => {
    const { c } = await seeded(connect);
    const entities = Array.from({ length: 230 }, (_, i) => ({ name: `node ${String(i).padStart(3, "0")}`, entityType: "t", observations: [] }));
    await c.call("create_entities", { entities });
    await c.call("create", { path: "a/b.txt", file_text: "x" });
    const uris: string[] = [];
    let page = await c.listResources("");
    let pages = 1;
    uris.push(...page.resources.map((r) => r.uri));
    while (page.nextCursor !== undefined) {
      page = await c.listResources(page.nextCursor);
      pages++;
      uris.push(...page.resources.map((r) => r.uri));
    }
    expect(pages).toBe(3);
    expect(uris.slice(0, 2)).toEqual(["memory://brief", "memory://knowledge-graph"]);
    expect(uris).toContain("memory://entity/node%20007");
    expect(uris).toContain("memory://file/a/b.txt");
    expect(uris.filter((u) => u.startsWith("memory://entity/"))).toHaveLength(230);
    expect(new Set(uris).size).toBe(uris.length);
    await c.close();
  });

  it("lists the templates of the served toolsets only", async () => {
    const all = await connect();
    expect((await all.listResourceTemplates()).map((t) => t.uriTemplate).sort()).toEqual(["memory://doc/{id}", "memory://entity/{name}", "memory://file/{+path}"]);
    await all.close();
    const { c } = await seeded(connect, "files");
    expect((await c.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["memory://file/{+path}"]);
    const e = await rejection(c.readResource("memory://entity/x"));
    expect(e.code).toBe(-32602);
    const first = await c.listResources("");
    expect(first.resources.map((r) => r.uri)).toEqual(["memory://brief"]);
    await c.close();
    const none = await connect({ url: "http://localhost/mcp?tools=history,contexts" });
    expect(none.capabilities()?.resources).toBeUndefined();
    await none.close();
  });

  it("refuses a cursor it did not give", async () => {
    const { c } = await seeded(connect);
    const e = await rejection(c.listResources("nonsense"));
    expect(e.code).toBe(-32602);
    expect(e.message).toContain("Invalid cursor");
    await c.close();
  });
});

describe.each(CLIENTS)("an unexpected failure, with %s client", (_label, connect) => {
  it("is an internal error with a reference, logged, and never shows its message", async () => {
    const context = await registered(freshContext("res"));
    const c = await connect({ url: `http://localhost/mcp/${context}` });
    await c.call("create_entities", { entities: [{ name: "x", entityType: "t", observations: [] }] });
    const rename = (from: string, to: string) =>
      runInDurableObject(stubOf(context), (_i, state) => {
        new Db(state.storage.sql).run(`ALTER TABLE ${from} RENAME TO ${to}`);
      });
    await rename("files", "files_gone");
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const e = await rejection(c.readResource("memory://brief"));
      expect(e.code).toBe(-32603);
      const ref = /Internal error \(ref ([0-9a-f]{8})\)/.exec(e.message)?.[1];
      expect(ref).toBeDefined();
      expect(e.message).not.toMatch(/SQL|files/);
      // The object logged the failure once, under the reference the client was given.
      expect(logged.mock.calls.map((call) => String(call[0]))).toEqual([
        expect.stringMatching(new RegExp(`^\\{"event":"internal_error","ref":"${ref}","tool":"resource:brief".*no such table: files`)),
      ]);
    } finally {
      logged.mockRestore();
      await rename("files_gone", "files");
    }
    await c.close();
  });
});
