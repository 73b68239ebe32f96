/**
 * The web page's MCP client (src/ui/client/mcp.ts) against the real Worker,
 * and the page's readers of tool output against what the tools answer.
 */
import { describe, expect, it } from "vitest";
import { type Change, ownChangeToUndo } from "../../src/ui/client/changes";
import { type DuplicatePair, mergeStep, pairSummary } from "../../src/ui/client/duplicates";
import { CallError, EngramClient, PROTOCOL_VERSION } from "../../src/ui/client/mcp";
import { parseDocTree, parseFileTree } from "../../src/ui/client/trees";
import { freshContext, workerFetch } from "../helpers/clients";
import { registered } from "../helpers/context";
import { BASE, mint, secured } from "../helpers/teams";

const client = (session?: string) => new EngramClient({ base: "http://127.0.0.1:8787", fetch: workerFetch(), ...(session ? { session } : {}) });

describe("the page's MCP client", () => {
  it("sends one stateless 2026-07-28 request per call, with the standard headers and the _meta envelope", async () => {
    const seen: { headers: Headers; body: { method: string; params: { _meta: Record<string, unknown>; name?: string } } }[] = [];
    const f = workerFetch();
    const c = new EngramClient({
      base: "http://127.0.0.1:8787",
      fetch: async (url, init) => {
        seen.push({ headers: new Headers(init.headers), body: JSON.parse(String(init.body)) });
        return f(url, init);
      },
    });
    const tools = await c.listTools(freshContext("ui-client"));
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["search_nodes", "open_nodes", "add_observations", "undo"]));
    await c.callTool(undefined, "list_contexts");
    expect(seen.map((s) => s.body.method)).toEqual(["tools/list", "tools/call"]);
    for (const s of seen) {
      expect(s.headers.get("MCP-Protocol-Version")).toBe(PROTOCOL_VERSION);
      expect(s.headers.get("Mcp-Method")).toBe(s.body.method);
      expect(s.body.params._meta["io.modelcontextprotocol/protocolVersion"]).toBe(PROTOCOL_VERSION);
    }
    expect(seen[1]?.headers.get("Mcp-Name")).toBe("list_contexts");
  });

  it("returns structuredContent, and turns a tool error into a CallError with the tool's message", async () => {
    const ctx = freshContext("ui-client");
    const c = client();
    const created = await c.call<{ entities: { name: string }[] }>(ctx, "create_entities", { entities: [{ name: "A", entityType: "t", observations: [] }] });
    expect(created.entities.map((e) => e.name)).toEqual(["A"]);
    const error = await c.callTool(ctx, "add_observations", { observations: [{ entityName: "Missing", contents: ["x"] }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CallError);
    expect((error as CallError).kind).toBe("tool");
    expect((error as CallError).message).toContain("Missing");
    expect((error as CallError).message).not.toContain("[context:");
  });

  it("sends the token as a bearer header: 401 is kind auth, a context without a grant is kind forbidden", async () => {
    const ctx = await registered(freshContext("ui-client"));
    const alice = await mint([{ context: ctx, role: "write", create: true }]);
    const as = (token: string | undefined) => new EngramClient({ base: BASE, fetch: secured, token: () => token });
    expect((await as(alice.token).call<{ entities: unknown[] }>(ctx, "search_nodes", { query: "x" })).entities).toEqual([]);
    const noToken = await as(undefined)
      .listTools(ctx)
      .catch((e: unknown) => e);
    expect(noToken).toMatchObject({ kind: "auth", status: 401 });
    const elsewhere = await as(alice.token)
      .listTools(freshContext("other"))
      .catch((e: unknown) => e);
    expect(elsewhere).toMatchObject({ kind: "forbidden", status: 403 });
    expect((elsewhere as CallError).message).toContain("no grant");
  });

  it("reads an answer sent as an event stream", async () => {
    const c = new EngramClient({
      fetch: async (_url, init) => {
        const id = (JSON.parse(String(init.body)) as { id: number }).id;
        const events = [": keep-alive", `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id, result: { content: [], structuredContent: { ok: 1 } } })}`];
        return new Response(`${events.join("\n\n")}\n\n`, { headers: { "Content-Type": "text/event-stream" } });
      },
    });
    expect(await c.call(undefined, "anything")).toEqual({ ok: 1 });
  });

  it("marks the tab's changes with its session key, so the page undoes exactly what it did", async () => {
    const ctx = freshContext("ui-client");
    const tab = client("web-tab-1");
    const agent = client("agent-session");
    await agent.callTool(ctx, "create_entities", { entities: [{ name: "Alice", entityType: "person", observations: ["prefers Go"] }] });
    const history = async () => (await tab.call<{ changes: Change[] }>(ctx, "memory_history", { limit: 50 })).changes;
    const before = (await history())[0]?.seq ?? 0;
    // An edit as the page makes it: add the new text, then delete the old.
    await tab.callTool(ctx, "add_observations", { observations: [{ entityName: "Alice", contents: ["prefers Go and Rust"] }] });
    await tab.callTool(ctx, "delete_observations", { deletions: [{ entityName: "Alice", observations: ["prefers Go"] }] });
    const changes = await history();
    expect(changes.slice(0, 2).map((c) => c.session)).toEqual(["web-tab-1", "web-tab-1"]);
    const target = ownChangeToUndo(changes, "web-tab-1", before);
    expect(target).toBe(before + 1);
    await tab.callTool(ctx, "undo", { change: target });
    const opened = await tab.call<{ entities: { observations: string[] }[] }>(ctx, "open_nodes", { names: ["Alice"] });
    expect(opened.entities[0]?.observations).toEqual(["prefers Go"]);
    // Nothing of the tab's is left to undo, and the agent's change is never picked.
    expect(ownChangeToUndo(await history(), "web-tab-1", before)).toBeUndefined();
  });
});

describe("the Duplicates tab's calls", () => {
  it("lists find_duplicates' pairs, merges one with the button's call, and the tab's own undo takes the merge back", async () => {
    const ctx = freshContext("ui-client");
    const tab = client("web-tab-dups");
    await tab.callTool(ctx, "create_entities", {
      entities: [
        { name: "Acme Corp", entityType: "company", observations: ["makes anvils"] },
        { name: "ACME Corporation", entityType: "company", observations: ["based in Phoenix"] },
      ],
    });
    const { pairs } = await tab.call<{ pairs: DuplicatePair[] }>(ctx, "find_duplicates");
    expect(pairs).toHaveLength(1);
    const [pair] = pairs as [DuplicatePair];
    expect(pairSummary(pair)).toBe("0.92: same name when normalised; same type (company)");
    const history = async () => (await tab.call<{ changes: Change[] }>(ctx, "memory_history", { limit: 50 })).changes;
    const before = (await history())[0]?.seq ?? 0;
    const step = mergeStep(pair.a, pair.b);
    await tab.callTool(ctx, step.tool, step.args);
    const merged = await tab.call<{ entities: { name: string; observations: string[] }[]; aliases: Record<string, string> }>(ctx, "open_nodes", { names: [pair.b] });
    expect(merged.entities.map((e) => e.name)).toEqual([pair.a]);
    expect(merged.aliases).toEqual({ [pair.b]: pair.a });
    expect((await tab.call<{ pairs: DuplicatePair[] }>(ctx, "find_duplicates")).pairs).toEqual([]);
    await tab.callTool(ctx, "undo", { change: ownChangeToUndo(await history(), "web-tab-dups", before) });
    expect((await tab.call<{ pairs: DuplicatePair[] }>(ctx, "find_duplicates")).pairs).toEqual(pairs);
  });
});

describe("reading tool output into trees", () => {
  it("rebuilds the file tree from view / with every path the tool knows", async () => {
    const ctx = freshContext("ui-client");
    const c = client();
    const paths = ["a.md", "notes/b.md", "notes/deep/c.md", "notes/deep/d e.md", "z/y/x.txt", "zz.md"];
    for (const path of paths) await c.callTool(ctx, "create", { path, file_text: "x" });
    const view = await c.call<{ text: string; files: number }>(ctx, "view", { path: "/" });
    const tree = parseFileTree(view.text, view.files);
    const flat = (nodes: ReturnType<typeof parseFileTree>): string[] => nodes.flatMap((n) => (n.dir ? flat(n.children) : [n.path]));
    expect(flat(tree).sort()).toEqual([...paths].sort());
    expect(tree.map((n) => `${n.name}${n.dir ? "/" : ""}`)).toEqual(["a.md", "notes/", "z/", "zz.md"]);
    const empty = await c.call<{ text: string; files: number }>(await registered(ctx.replace("ui-client", "ui-empty")), "view", { path: "/" });
    expect(parseFileTree(empty.text, empty.files)).toEqual([]);
  });

  it("rebuilds the document tree from get_document_tree, titles and quoted ids included", async () => {
    const ctx = freshContext("ui-client");
    const c = client();
    await c.callTool(ctx, "update_document", { id: "root", content: "# Notebook\n[[project]] [[yes]] [[tasks]]\n" });
    await c.callTool(ctx, "update_document", { id: "project", content: "# The project: goals\n[[db-schema]]\n" });
    const r = await c.call<{ yaml: string }>(ctx, "get_document_tree", { titles: true });
    const root = parseDocTree(r.yaml);
    expect(root?.id).toBe("root");
    expect(root?.title).toBe("Notebook");
    expect(root?.children.map((d) => d.id)).toEqual(["project", "yes", "tasks"]);
    expect(root?.children[0]).toMatchObject({ title: "The project: goals", children: [{ id: "db-schema", children: [] }] });
  });
});
