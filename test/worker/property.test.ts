/**
 * Property tests: random tool arguments, random JSON-RPC bodies and random
 * JSONL imports thrown at the server. Whatever arrives, the server never
 * answers 500 or an internal error, and a call it rejects leaves everything
 * stored (graph and history) exactly as it was. Run counts stay modest so
 * the suite stays fast on two cores.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { connectV1, connectV2, freshContext, text, workerFetch, type Fetch, type TestClient } from "../helpers/clients";
import { exportText } from "../helpers/context";
import { withLogs } from "../helpers/logs";

const TOOLS = [
  "create_entities",
  "create_relations",
  "add_observations",
  "delete_entities",
  "delete_observations",
  "delete_relations",
  "read_graph",
  "search_nodes",
  "open_nodes",
  "memory_history",
  "undo",
  "find_duplicates",
  "merge_entities",
];

// Mostly well-formed calls with names from a small pool, so most calls get past validation and
// reach the store (where they succeed or fail on the data); now and then a field is junk.
const name = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom("A", "B", "C", "ghost") },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "a\u0000b", "x".repeat(300)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 12 }) },
);
const observation = fc.oneof(
  { weight: 30, arbitrary: fc.constantFrom("fact", "other", "new") },
  { weight: 2, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 1, arbitrary: fc.constantFrom("", "\u0007", "y".repeat(17_000)) },
);
const junk = fc.jsonValue({ maxDepth: 2 });
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 20, arbitrary: arb }, { weight: 1, arbitrary: junk });
const list = <T>(arb: fc.Arbitrary<T>) => maybe(fc.array(maybe(arb), { minLength: 1, maxLength: 4 }));
/** A record with every field, or now and then with some missing. */
const shape = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) =>
  fc.oneof({ weight: 8, arbitrary: fc.record(fields) }, { weight: 1, arbitrary: fc.record(fields, { requiredKeys: [] }) });
const entity = shape({ name, entityType: name, observations: list(observation) });
const relation = shape({ from: name, to: name, relationType: fc.constantFrom("knows", "likes") });
const optional = { requiredKeys: [] as never[] };

const toolArgs: Record<string, fc.Arbitrary<unknown>> = {
  create_entities: shape({ entities: list(entity) }),
  create_relations: shape({ relations: list(relation) }),
  add_observations: shape({ observations: list(shape({ entityName: name, contents: list(observation) })) }),
  delete_entities: shape({ entityNames: list(name) }),
  delete_observations: shape({ deletions: list(shape({ entityName: name, observations: list(observation) })) }),
  delete_relations: shape({ relations: list(relation) }),
  read_graph: fc.record(
    { limit: maybe(fc.integer({ min: 0, max: 2001 })), cursor: maybe(fc.string()), mode: maybe(fc.constantFrom("full", "summary", "x")) },
    optional,
  ),
  search_nodes: shape({ query: maybe(fc.oneof(name, fc.string())), limit: maybe(fc.integer({ min: 0, max: 201 })) }),
  open_nodes: shape({ names: list(name) }),
  memory_history: fc.record(
    {
      item: maybe(name.map((n) => `entity:${n}`)),
      caller: maybe(fc.constantFrom("local", "bob")),
      since: maybe(fc.constantFrom("2020-01-01T00:00:00Z", "soon")),
      before: maybe(fc.integer({ min: 0, max: 100 })),
      limit: maybe(fc.integer({ min: 0, max: 201 })),
    },
    optional,
  ),
  find_duplicates: fc.record(
    { entityType: maybe(name), limit: maybe(fc.integer({ min: 0, max: 101 })), minScore: maybe(fc.double({ min: -0.5, max: 1.5, noNaN: true })) },
    optional,
  ),
  merge_entities: shape({ target: name, sources: list(name) }),
  undo: fc.oneof(
    fc.record({ change: maybe(fc.integer({ min: -1, max: 60 })) }, optional),
    fc.record({ count: maybe(fc.integer({ min: 0, max: 51 })) }, optional),
    fc.record({ change: fc.integer({ min: 1, max: 60 }), count: fc.integer({ min: 1, max: 5 }) }),
  ),
};

const toolCall = fc.oneof(
  ...TOOLS.map((tool) =>
    fc.record({
      tool: fc.constant(tool),
      args: fc.oneof({ weight: 8, arbitrary: toolArgs[tool] as fc.Arbitrary<unknown> }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), junk) }),
      context: fc.oneof({ weight: 12, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom("other", "Bad Name") }),
    }),
  ),
  fc.record({ tool: fc.string({ maxLength: 16 }), args: fc.dictionary(fc.string({ maxLength: 8 }), junk), context: fc.constant(undefined) }),
);

/** A fetch that remembers every status it saw. */
function recording(statuses: number[]): Fetch {
  const f = workerFetch();
  return async (input, init) => {
    const res = await f(input, init);
    statuses.push(res.status);
    return res;
  };
}

async function seeded(ctx: string, client: TestClient) {
  await client.call("create_entities", {
    entities: [
      { name: "A", entityType: "t", observations: ["fact"] },
      { name: "B", entityType: "t", observations: [] },
    ],
  });
  await client.call("create_relations", { relations: [{ from: "A", to: "B", relationType: "knows" }] });
  return ctx;
}

describe("property: random tool arguments", () => {
  const ctx = freshContext("prop");
  const statuses: number[] = [];
  let clients: TestClient[] = [];

  beforeAll(async () => {
    const url = `http://localhost/mcp/${ctx}`;
    clients = [await connectV1({ url, fetch: recording(statuses) }), await connectV2({ url, fetch: recording(statuses) })];
    await seeded(ctx, clients[1] as TestClient);
  });

  it("never answer 500 or an internal error, and a rejected call changes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(toolCall, fc.nat(1), async ({ tool, args, context }, which) => {
        const before = await exportText(ctx, true);
        const client = clients[which] as TestClient;
        const payload = context === undefined ? args : { ...(args as object), context };
        let rejected: boolean;
        try {
          const r = await client.call(tool, payload as Record<string, unknown>);
          expect(text(r)).not.toContain("Internal error");
          rejected = r.isError === true;
        } catch (error) {
          // A protocol error (unknown tool, arguments that are not an object): rejected, never a server fault.
          expect(String(error)).not.toMatch(/\b500\b|Internal error/);
          rejected = true;
        }
        expect(statuses.filter((s) => s >= 500)).toEqual([]);
        if (rejected) expect(await exportText(ctx, true)).toBe(before);
      }),
      { numRuns: 80 },
    );
  });
});

const method = fc.oneof(
  fc.constantFrom("initialize", "tools/list", "tools/call", "resources/list", "resources/read", "ping", "notifications/initialized"),
  fc.string({ maxLength: 16 }),
);
const params = fc.oneof(fc.record({ name: fc.constantFrom(...TOOLS), arguments: fc.oneof(junk, fc.dictionary(fc.string({ maxLength: 8 }), junk)) }, optional), junk);
const message = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 4, arbitrary: fc.constant("2.0") }, { weight: 1, arbitrary: junk }),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), junk),
    method,
    params,
  },
  optional,
);
const rpcBody = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.json({ maxDepth: 3 }),
  message.map((m) => JSON.stringify(m)),
  fc.array(message, { maxLength: 3 }).map((m) => JSON.stringify(m)),
);

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "fuzz", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** A 2026-07-28 stateless tools/call with random arguments, its headers now and then contradicting the body. */
const envelopedCall = fc
  .constantFrom(...TOOLS)
  .chain((tool) =>
    fc.tuple(
      fc.constant(tool),
      toolArgs[tool] as fc.Arbitrary<unknown>,
      fc.oneof({ weight: 6, arbitrary: fc.constant(tool) }, { weight: 1, arbitrary: fc.constantFrom("read_graph", "undo") }),
      fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    ),
  )
  .map(([tool, args, headerName, withMeta]) => ({
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: args, ...(withMeta ? { _meta: META } : {}) } }),
    headers: { "Mcp-Method": "tools/call", "Mcp-Name": headerName, "Mcp-Protocol-Version": "2026-07-28" } as Record<string, string>,
  }));
const rpcRequest = fc.oneof(
  { weight: 1, arbitrary: rpcBody.map((body) => ({ body, headers: {} as Record<string, string> })) },
  { weight: 1, arbitrary: envelopedCall },
);

/** Whether a response carries a tool result that succeeded (the only kind of answer allowed to change data). */
function toolSucceeded(body: string): boolean {
  const payloads = body
    .split("\n")
    .map((l) => l.replace(/^data: /, "").trim())
    .filter((l) => l.startsWith("{") || l.startsWith("["));
  for (const p of payloads) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(p);
    } catch {
      continue;
    }
    for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
      const result = (m as { result?: { content?: unknown; isError?: boolean } }).result;
      if (result?.content !== undefined && result.isError !== true) return true;
    }
  }
  return false;
}

describe("property: random JSON-RPC bodies", () => {
  it("never answer 500, and change nothing unless a tool call succeeded", async () => {
    const ctx = freshContext("prop");
    const c = await connectV2({ url: `http://localhost/mcp/${ctx}` });
    await seeded(ctx, c);
    await c.close();
    const f = workerFetch();
    // A malformed request is the client's mistake: the SDK's report of it is logged at info level (src/mcp/http.ts), never as an error.
    const { logged } = await withLogs(() =>
      fc.assert(
        fc.asyncProperty(rpcRequest, fc.boolean(), async ({ body, headers }, acceptBoth) => {
          const before = await exportText(ctx, true);
          const res = await f(`http://localhost/mcp/${ctx}`, {
            method: "POST",
            headers: { "Content-Type": "application/json", Accept: acceptBoth ? "application/json, text/event-stream" : "application/json", ...headers },
            body,
          });
          const answer = await res.text();
          expect(res.status, answer).toBeLessThan(500);
          expect(answer).not.toContain("Internal error");
          const after = await exportText(ctx, true);
          if (after !== before) expect(toolSucceeded(answer), `${body} changed data but answered ${answer}`).toBe(true);
        }),
        { numRuns: 80 },
      ),
    );
    expect(logged.filter((l) => l.level !== "info")).toEqual([]);
    for (const { line } of logged) expect(line).toEqual({ event: "mcp_rejected", status: expect.any(Number), error: expect.any(String) });
    expect(logged.every(({ line }) => (line.status as number) < 500)).toBe(true);
  });
});

const poolName = fc.constantFrom("A", "B", "C", "D");
const jsonlLine = fc.oneof(
  fc
    .record({ type: fc.constant("entity"), name: poolName, entityType: fc.constant("t"), observations: fc.array(fc.constantFrom("o1", "o2"), { maxLength: 2 }) })
    .map((o) => JSON.stringify(o)),
  fc.record({ type: fc.constant("relation"), from: poolName, to: poolName, relationType: fc.constantFrom("r", "s") }).map((o) => JSON.stringify(o)),
  fc
    .record(
      {
        type: fc.constantFrom("entity", "relation", "change", "x"),
        name,
        entityType: name,
        observations: list(observation),
        from: name,
        to: name,
        relationType: name,
      },
      optional,
    )
    .map((o) => JSON.stringify(o)),
  junk.map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 40 }),
  fc.constant(""),
);

describe("property: random JSONL imports", () => {
  it("never answer 500; an import that adds nothing changes nothing, one that adds records exactly one change", async () => {
    const ctx = freshContext("prop");
    const f = workerFetch();
    await fc.assert(
      fc.asyncProperty(
        fc.array(jsonlLine, { maxLength: 12 }),
        fc.constantFrom("\n", "\r\n"),
        fc.constantFrom("", "?firstLine=5", "?firstLine=0", "?firstLine=x"),
        async (lines, eol, query) => {
          const before = await exportText(ctx, true);
          const historyBefore = before.split("\n").filter((l) => l.startsWith('{"type":"change"')).length;
          const res = await f(`http://localhost/api/contexts/${ctx}/import${query}`, {
            method: "POST",
            headers: { "Content-Type": "application/x-ndjson" },
            body: lines.join(eol),
          });
          expect(res.status).toBeLessThan(500);
          const after = await exportText(ctx, true);
          if (res.status !== 200) {
            expect(after).toBe(before);
            return;
          }
          const report = (await res.json()) as { entitiesCreated: number; entitiesMerged: number; relationsCreated: number; rejected: { line: number }[] };
          const first = query === "?firstLine=5" ? 5 : 1;
          for (const r of report.rejected) expect((lines[r.line - first] ?? "").trim()).not.toBe("");
          const added = report.entitiesCreated + report.entitiesMerged + report.relationsCreated;
          const historyAfter = after.split("\n").filter((l) => l.startsWith('{"type":"change"')).length;
          if (added === 0) expect(after).toBe(before);
          else expect(historyAfter).toBe(historyBefore + 1);
        },
      ),
      { numRuns: 60 },
    );
  });
});
