/**
 * The MCP layer's own cost per request inside workerd: no wrangler dev, no
 * socket, so what remains is the Worker (Hono, auth, the MCP SDK's
 * handler) and, for the trivial call, one Durable Object RPC.
 *
 *   npm run bench:mcp                            (7 rounds of 40 requests per kind)
 *   MCPB_ROUNDS=11 MCPB_N=60 npm run bench:mcp
 *
 * ## What it sends
 * The real clients' requests, recorded once: the SDK v1 client (2025-era:
 * `initialize`, then session-less POSTs with `MCP-Protocol-Version`, as
 * `npm run bench` sends) and the SDK v2 client pinned to 2026-07-28 (no
 * handshake; `_meta` envelope and `Mcp-Method` headers). Each kind is then
 * replayed with its recorded headers and body through `SELF.fetch`, with a
 * bearer token, and its body read to the end.
 *
 * ## How it measures
 * The clock inside workerd moves only across I/O, and each fetch is I/O: N
 * requests of one kind run back to back between two clock readings, and the
 * step divided by N is one round's time per request. The table shows the
 * median and minimum over the rounds (a warm-up round is dropped). For the
 * trivial call it also shows that time minus the RPC the tool reports in its
 * result's `_meta` (`engram/rpcMs`, sent when the request carries
 * `Engram-Timing: 1`, as the recorded ones do). The last line, MCPB_RESULT, is the
 * medians as JSON for scripts that compare two builds.
 *
 * MCPB_VARIANTS=a,b sends `x-mcpb-variant: a` or `b` (rounds alternate
 * between them) for a prototype that switches on that header, so two
 * variants compare in one run; MCPB_ONLY=2025 keeps the kinds whose label
 * contains it. Confirm a gain under `wrangler dev` (bench/ab.mjs,
 * bench/cpu-ab.mjs): this pool's workerd does not cost everything as
 * `wrangler dev` does. Aborting a finished request handler's AbortController
 * with an error, which the SDK does when it closes a server in a microtask
 * after a 2026-07-28 answer, costs about 2 ms of wall time per request here
 * and nothing measurable under `wrangler dev`; so the 2026 rows here read
 * ~2 ms high (src/mcp/http.ts).
 */
import { env, SELF } from "cloudflare:test";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { expect, it } from "vitest";
import { RPC_MS_META, TIMING_HEADER } from "../../src/mcp/tool";

const vars = env as unknown as Record<string, string | undefined>;
const ROUNDS = Number(vars.MCPB_ROUNDS ?? 7);
const N = Number(vars.MCPB_N ?? 40);
const TOKEN = "bench-admin-token";
const CONTEXT = "bench-mcp";
const URL_ = `http://localhost/mcp/${CONTEXT}`;
/** Prototype variants to alternate within one run, sent as x-mcpb-variant (only a prototype's code reads it). */
const VARIANTS = (vars.MCPB_VARIANTS ?? "").split(",").filter(Boolean);

interface Recorded {
  url: string;
  headers: [string, string][];
  body: string;
}

type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that passes requests to the Worker and keeps each POST by its JSON-RPC method (tools/call by tool name). */
function recorder(): { fetch: Fetch; seen: Map<string, Recorded> } {
  const seen = new Map<string, Recorded>();
  const fetch: Fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "POST") {
      const body = await request.clone().text();
      const message = JSON.parse(body) as { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } };
      const key = message.method === "tools/call" ? `call:${JSON.stringify(message.params?.arguments)}` : String(message.method);
      seen.set(key, { url: request.url, headers: [...request.headers], body });
    }
    return SELF.fetch(request);
  };
  return { fetch, seen };
}

const INVALID = { limit: "one" };
const TRIVIAL = { limit: 1, mode: "summary" };

async function record(era: "v1" | "v2"): Promise<Map<string, Recorded>> {
  const r = recorder();
  // As `npm run bench` does: ask for the RPC time each result reports.
  const headers = { Authorization: `Bearer ${TOKEN}`, [TIMING_HEADER]: "1" };
  const client =
    era === "v1"
      ? new ClientV1({ name: "engram-bench", version: "1.0.0" })
      : new ClientV2({ name: "engram-bench", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport =
    era === "v1"
      ? new TransportV1(new URL(URL_), { fetch: r.fetch, requestInit: { headers } })
      : new TransportV2(new URL(URL_), { fetch: r.fetch, requestInit: { headers } });
  await (client as ClientV1).connect(transport as TransportV1);
  const c = client as ClientV1;
  // 2026-07-28 has no ping; its lightest request here is the invalid call.
  if (era === "v1") await c.ping();
  await c.listTools();
  await c.callTool({ name: "create_entities", arguments: { entities: [{ name: "a", entityType: "t", observations: ["o"] }] } });
  await c.callTool({ name: "read_graph", arguments: INVALID }).catch(() => undefined);
  await c.callTool({ name: "read_graph", arguments: TRIVIAL });
  await c.close();
  return r.seen;
}

/** The JSON-RPC message in a response body, plain JSON or the first SSE `data:` line. */
function messageOf(text: string): { result?: { isError?: boolean; _meta?: Record<string, number> }; error?: unknown } {
  const data = text.startsWith("{")
    ? text
    : text
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6);
  return JSON.parse(data ?? "{}");
}

const health: Recorded = { url: "http://localhost/health", headers: [], body: "" };

async function send(r: Recorded, id: number, variant?: string): Promise<string> {
  const headers = new Headers(r.headers);
  if (variant) headers.set("x-mcpb-variant", variant);
  const init: RequestInit = { method: r.body ? "POST" : "GET", headers };
  if (r.body) init.body = r.body.replace(/"id":\d+/, `"id":${id}`);
  const response = await SELF.fetch(r.url, init);
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${r.url} answered ${response.status}: ${text}`);
  return text;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
};

it("times each request kind through the Worker", async () => {
  const v1 = await record("v1");
  const v2 = await record("v2");
  const kinds: [string, Recorded][] = [["health", health]];
  for (const [era, seen] of [
    ["2025", v1],
    ["2026", v2],
  ] as const) {
    if (seen.has("initialize")) kinds.push([`${era} initialize`, seen.get("initialize") as Recorded]);
    for (const [label, key] of [
      ["ping", "ping"],
      ["tools/list", "tools/list"],
      ["call invalid", `call:${JSON.stringify(INVALID)}`],
      ["call trivial", `call:${JSON.stringify(TRIVIAL)}`],
    ]) {
      const r = seen.get(key as string);
      if (key === "ping" && era === "2026") continue;
      expect(r, `${era} ${key}`).toBeDefined();
      kinds.push([`${era} ${label}`, r as Recorded]);
    }
  }
  // Each kind answers as the real client saw it: the invalid call as a tool error, the trivial one with its RPC time.
  const only = vars.MCPB_ONLY;
  if (only) kinds.splice(0, kinds.length, ...kinds.filter(([label]) => label.includes(only)));
  const variants = VARIANTS.length > 0 ? VARIANTS : [undefined];
  for (const variant of variants) {
    for (const [label, r] of kinds) {
      if (r === health) continue;
      const m = messageOf(await send(r, 1, variant));
      expect(m.error, `${variant} ${label}`).toBeUndefined();
      if (label.endsWith("invalid")) expect(m.result?.isError, label).toBe(true);
      if (label.endsWith("trivial")) expect(typeof m.result?._meta?.[RPC_MS_META], label).toBe("number");
    }
  }

  const samples = new Map<string, number[]>();
  const keep = (key: string, ms: number) => samples.set(key, [...(samples.get(key) ?? []), ms]);
  for (let round = 0; round <= ROUNDS; round++) {
    // Variants alternate, in reverse order every other round, so drift in the machine's speed falls on each alike.
    const order = round % 2 ? [...variants].reverse() : variants;
    for (const [label, r] of kinds) {
      for (const variant of order) {
        let rpcSum = 0;
        const t0 = performance.now();
        for (let i = 0; i < N; i++) {
          const text = await send(r, i + 2, variant);
          if (label.endsWith("trivial")) rpcSum += messageOf(text).result?._meta?.[RPC_MS_META] ?? 0;
        }
        const ms = (performance.now() - t0) / N;
        if (round === 0) continue;
        keep(`${label}\t${variant ?? ""}`, ms);
        if (label.endsWith("trivial")) keep(`${label} - rpc\t${variant ?? ""}`, ms - rpcSum / N);
      }
    }
  }

  const lines = [`ms per request, ${ROUNDS} rounds of ${N} (median / min over rounds)${VARIANTS.length ? `; columns: ${VARIANTS.join(", ")}` : ""}`];
  const result: Record<string, Record<string, number>> = {};
  const rows = [...new Set([...samples.keys()].map((k) => k.split("\t")[0] as string))];
  for (const row of rows) {
    const cells = variants.map((variant) => {
      const xs = samples.get(`${row}\t${variant ?? ""}`) ?? [];
      (result[variant ?? "this"] ??= {})[row] = Number(median(xs).toFixed(3));
      return `${median(xs).toFixed(3).padStart(7)} / ${Math.min(...xs).toFixed(3)}`;
    });
    lines.push(`${row.padEnd(24)} ${cells.join("   ")}`);
  }
  lines.push(`MCPB_RESULT ${JSON.stringify(result)}`);
  console.log(lines.join("\n"));
});
