/**
 * Request bodies whose bytes are not UTF-8, sent as a client would send
 * them through the Worker's fetch: a raw 0xFF in an MCP call, a Latin-1
 * import file, an /api body with stray bytes. Each is refused whole with
 * 400 and the offset of the first ill-formed byte, and changes nothing;
 * nothing is stored with U+FFFD in place of what was sent. A byte-order
 * mark at the start is skipped, and the body limit still holds for bodies
 * sent in chunks.
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits";
import { exportText, registered } from "../helpers/context";
import { connectV2, freshContext, workerFetch } from "../helpers/clients";

const f = workerFetch();
const utf8 = (s: string) => new TextEncoder().encode(s);
/** `parts` joined: strings as UTF-8, numbers as raw bytes. */
const bytes = (...parts: (string | number[])[]) => new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...utf8(p)] : p)));
/** A body sent in chunks, with no Content-Length (Transfer-Encoding: chunked). */
const chunked = (b: Uint8Array, size = 64 * 1024) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < b.length; i += size) controller.enqueue(b.slice(i, i + size));
      controller.close();
    },
  });

const MCP_HEADERS = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" };
/** A tools/call of create_entities with an entity named `name` (raw bytes after "N"). */
const createCall = (name: number[]) =>
  bytes(
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"N',
    name,
    '","entityType":"t","observations":[]}]}}}',
  );
const NAME_AT = createCall([]).indexOf(0x4e) + 1; // the byte after "N"

describe("bodies that are not UTF-8", () => {
  it("refuses an MCP call with a raw 0xFF in a name as a JSON-RPC parse error, and stores nothing", async () => {
    const context = await registered(freshContext("utf8"));
    for (const body of [createCall([0xff]), chunked(createCall([0xff]))]) {
      const res = await f(`http://localhost/mcp/${context}`, { method: "POST", headers: MCP_HEADERS, body });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32700, message: `Parse error: the body is not valid UTF-8 (at byte ${NAME_AT} (0xFF)); send JSON encoded as UTF-8.` },
      });
    }
    // A truncated sequence (é without its second byte) and an encoded surrogate (ED A0 80) are refused alike.
    for (const name of [[0xc3], [0xed, 0xa0, 0x80]]) {
      const res = await f(`http://localhost/mcp/${context}`, { method: "POST", headers: MCP_HEADERS, body: createCall(name) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(`at byte ${NAME_AT} (0x${name[0]?.toString(16).toUpperCase()})`);
    }
    expect(await exportText(context)).toBe("");
    // The same call in UTF-8 is served, and the name is stored as sent.
    const ok = await f(`http://localhost/mcp/${context}`, { method: "POST", headers: MCP_HEADERS, body: createCall([...utf8("é")]) });
    expect(ok.status).toBe(200);
    expect(await exportText(context)).toContain('"name":"Né"');
  });

  it("refuses an /api body with stray bytes with 400 in the usual shape, and creates nothing", async () => {
    const name = freshContext("utf8");
    const res = await f("http://localhost/api/contexts", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: bytes(`{"name":"${name}","description":"d`, [0xff, 0xfe], '"}'),
    });
    expect(res.status).toBe(400);
    const offset = `{"name":"${name}","description":"d`.length;
    expect(await res.json()).toEqual({ error: "invalid", message: `The body is not valid UTF-8 (at byte ${offset} (0xFF)); send JSON encoded as UTF-8.` });
    const listed = (await (await f("http://localhost/api/contexts")).json()) as { contexts: { name: string }[] };
    expect(listed.contexts.map((c) => c.name)).not.toContain(name);
  });

  it("refuses a Latin-1 import file whole, naming the line and byte, and writes not even its good lines", async () => {
    const context = await registered(freshContext("utf8"));
    const good = '{"type":"entity","name":"Tea","entityType":"t","observations":[]}\n';
    const before = '{"type":"entity","name":"Caf';
    const file = bytes(good, good.replace("Tea", "Milk"), before, [0xe9], '","entityType":"t","observations":[]}\n');
    const url = `http://localhost/api/contexts/${context}/import`;
    for (const [query, line] of [
      ["", 3],
      ["?firstLine=101", 103],
    ] as const) {
      const res = await f(`${url}${query}`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body: file });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: "invalid",
        message: `The file must be UTF-8, but line ${line} is not: at byte ${before.length} (0xE9) of the line. Convert it first (for a Latin-1 file: iconv -f latin1 -t utf-8); nothing was written.`,
      });
    }
    expect(await exportText(context)).toBe("");
  });

  it("skips a byte-order mark at the start of an import file and of a JSON body, and keeps U+FEFF elsewhere as a character", async () => {
    const context = await registered(freshContext("utf8"));
    const bom = [0xef, 0xbb, 0xbf];
    const file = bytes(bom, '{"type":"entity","name":"Tea","entityType":"t","observations":["a\uFEFFb"]}\n');
    const res = await f(`http://localhost/api/contexts/${context}/import`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body: file });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ entitiesCreated: 1, rejected: [] });
    expect(await exportText(context)).toContain('"name":"Tea","entityType":"t","observations":["a\uFEFFb"]');
    const name = freshContext("utf8");
    const created = await f("http://localhost/api/contexts", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: bytes(bom, `{"name":"${name}"}`),
    });
    expect(created.status).toBe(201);
  });

  it("still refuses bodies over the limit with 413 when they come in chunks, on /mcp and /api", async () => {
    const big = new Uint8Array(LIMITS.requestBodyBytes + 1).fill(0x20);
    const mcp = await f("http://localhost/mcp", { method: "POST", headers: MCP_HEADERS, body: chunked(big) });
    expect(mcp.status).toBe(413);
    const api = await f("http://localhost/api/contexts", { method: "POST", headers: { "Content-Type": "application/json" }, body: chunked(big) });
    expect(api.status).toBe(413);
    const file = await f(`http://localhost/api/contexts/${freshContext("utf8")}/import`, {
      method: "POST",
      headers: { "Content-Type": "application/x-ndjson" },
      body: chunked(big),
    });
    expect(file.status).toBe(413);
    // And a chunked body under the limit is served.
    const c = await connectV2();
    expect((await c.listTools()).length).toBeGreaterThan(0);
    await c.close();
  });
});
