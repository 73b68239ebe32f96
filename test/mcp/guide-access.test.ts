/**
 * Prompts, resources and completions honour grants and contexts like the
 * tools: a pinned URL reads its context, /mcp the caller's active one, and a
 * caller without a read grant gets an error, never data. The capabilities
 * advertised match what the connection serves.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, type TestClient, rejection } from "../helpers/clients";
import { ADMIN, connectAs, createContext, mint } from "../helpers/teams";

/** Every read of the guide surface, each expected to fail without a grant. */
const reads = (c: TestClient): [string, () => Promise<unknown>][] => [
  ["resources/read brief", () => c.readResource("memory://brief")],
  ["resources/read entity", () => c.readResource("memory://entity/secret")],
  ["resources/list", () => c.listResources("")],
  ["prompts/get recall", () => c.getPrompt("recall", { topic: "secret" })],
  ["prompts/get brief", () => c.getPrompt("brief")],
  ["completion", () => c.complete({ type: "ref/prompt", name: "recall" }, "topic", "s")],
];

describe.each(CLIENTS)("grants and contexts for prompts and resources, with %s client", (_label, connect) => {
  it("reads the pinned context with a read grant, and a read-only context too", async () => {
    const ctx = freshContext("team");
    await createContext(ctx);
    const writer = await connectAs(connect, (await mint([{ context: ctx, role: "write" }])).token, `/mcp/${ctx}`);
    await writer.call("create_entities", { entities: [{ name: "secret plan", entityType: "plan", observations: ["launch in May"] }] });
    await writer.close();
    const reader = await connectAs(connect, (await mint([{ context: ctx, role: "read" }])).token, `/mcp/${ctx}`);
    expect((await reader.readResource("memory://brief")).contents[0]?.text).toContain("launch in May");
    expect((await reader.readResource("memory://entity/secret%20plan")).contents[0]?.text).toContain("launch in May");
    expect((await reader.complete({ type: "ref/prompt", name: "recall" }, "topic", "SEC")).values).toEqual(["secret plan"]);
    await reader.close();

    const frozen = freshContext("team");
    await createContext(frozen, { readOnly: true });
    const onFrozen = await connectAs(connect, (await mint([{ context: frozen, role: "read" }])).token, `/mcp/${frozen}`);
    expect((await onFrozen.getPrompt("brief")).messages[0]?.content.text).toContain("Nothing is stored yet");
    await onFrozen.close();
  });

  it("reads the default context when the active one was removed, and says so in the brief and the prompts", async () => {
    const ctx = freshContext("team");
    await createContext(ctx);
    const client = await connectAs(connect, (await mint([{ context: "*", role: "write" }])).token);
    await client.call("set_active_context", { name: ctx });
    const admin = await connectAs(connect, ADMIN);
    expect((await admin.call("remove_context", { name: ctx })).isError).toBeFalsy();
    const note = `your active context "${ctx}" was removed, so this call used "default"`;
    expect((await client.readResource("memory://brief")).contents[0]?.text).toContain(note);
    for (const [name, args] of [
      ["recall", { topic: "x" }],
      ["remember", { summary: "x" }],
      ["memory-guide", undefined],
    ] as const) {
      expect((await client.getPrompt(name, args)).messages[0]?.content.text, name).toContain(note);
    }
    for (const c of [client, admin]) await c.close();
  });

  it("refuses every read of a context the caller has no grant for, naming the context, with no data", async () => {
    const mine = freshContext("team");
    await createContext(mine);
    // /mcp reads the active context: with no grant on it (the default context), every read is refused.
    const c = await connectAs(connect, (await mint([{ context: mine, role: "admin" }])).token);
    for (const [what, p] of reads(c)) {
      const e = await rejection(p());
      expect(e.code, what).toBe(-32602);
      expect(e.message, what).toMatch(/no grant for context "default"/);
    }
    await c.close();
  });
});

describe.each(CLIENTS)("capabilities, with %s client", (_label, connect) => {
  it("advertise prompts, resources and completions when served, and only then", async () => {
    const all = await connect();
    expect(all.capabilities()).toMatchObject({ prompts: {}, resources: {}, completions: {} });
    await all.close();
    const history = await connect({ url: "http://localhost/mcp?tools=history" });
    const caps = history.capabilities() ?? {};
    expect(caps.resources).toBeUndefined();
    expect(caps.completions).toBeUndefined();
    expect((await history.listPrompts()).map((p) => p.name)).toEqual(["memory-guide"]);
    await history.close();
  });
});
