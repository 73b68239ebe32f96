/**
 * Engram under `wrangler dev`, started and stopped by the benchmark.
 *
 * ## Lifecycle
 * `startEngram` spawns wrangler in its own process group on a free loopback
 * port with a throwaway persist dir, and polls GET /health (bounded) until
 * it answers. `stop` ends that process group (SIGTERM, then SIGKILL after a
 * grace period) and removes the persist dir; it is safe to call twice and
 * is also wired to process exit and SIGINT/SIGTERM by run.mjs.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { freePort, memoryOf } from "./proc.mjs";
import { TIMING_HEADERS } from "./workload.mjs";

const READY_TIMEOUT_MS = 120_000;

/**
 * fetch with a signal of its own per request, following the caller's signal
 * until the response has been read. The SDK's transport passes one signal,
 * its own for the client's lifetime, to every request, and Node's fetch adds
 * an abort listener to the signal it gets that goes only when the request is
 * garbage collected: over a long query phase, with the bench's large heap
 * collected seldom, they piled up to MaxListenersExceededWarning (1,501
 * listeners) past about 1,500 calls. Here the shared signal holds one listener
 * per request in flight, removed once the response body is read or dropped.
 */
export async function fetchOwnSignal(url, init = {}) {
  const shared = init.signal;
  if (!shared) return fetch(url, init);
  const own = new AbortController();
  const follow = () => own.abort(shared.reason);
  const unfollow = () => shared.removeEventListener("abort", follow);
  if (shared.aborted) follow();
  else shared.addEventListener("abort", follow, { once: true });
  let response;
  try {
    response = await fetch(url, { ...init, signal: own.signal });
  } catch (error) {
    unfollow();
    throw error;
  }
  if (!response.body) {
    unfollow();
    return response;
  }
  // The body, passed through so its end, its failure or its cancel drops the listener.
  const reader = response.body.getReader();
  const body = new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        unfollow();
        controller.close();
      } catch (error) {
        unfollow();
        controller.error(error);
      }
    },
    cancel(reason) {
      unfollow();
      return reader.cancel(reason);
    },
  });
  const passed = new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  // The transport checks a redirect against the address the answer came from.
  Object.defineProperty(passed, "url", { value: response.url });
  return passed;
}

/** An MCP client connected to `url` with `headers` on every request. */
async function connectMcp(url, headers) {
  const client = new Client({ name: "engram-bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch: fetchOwnSignal }));
  return client;
}
const STOP_GRACE_MS = 10_000;

export async function startEngram({ root, stateDir, keepState = false, env = {}, vars = {}, log }) {
  const port = await freePort();
  const inspectorPort = await freePort();
  if (keepState && fs.existsSync(stateDir) && fs.readdirSync(stateDir).length > 0) {
    throw new Error(`--keep-state: ${stateDir} is not empty; give a new or empty directory`);
  }
  fs.rmSync(stateDir, { recursive: true, force: true });
  fs.mkdirSync(stateDir, { recursive: true });
  const wrangler = path.join(root, "node_modules", "wrangler", "bin", "wrangler.js");
  // biome-ignore format: one flag and its value per pair, one option group per line
  const args = [
    wrangler, "dev",
    "--ip", "127.0.0.1", "--port", String(port),
    "--inspector-ip", "127.0.0.1", "--inspector-port", String(inspectorPort),
    "--persist-to", stateDir,
    "--log-level", "warn",
    "--show-interactive-dev-session=false",
    // Settings for the server under test (wrangler vars), e.g. SEARCH_EXPANSION=false.
    ...Object.entries(vars).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
  const child = spawn(process.execPath, args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // No telemetry and no fetch of the `Request.cf` object: the benchmark talks to loopback only.
    // No local trace store: wrangler dev writes a trace of every request to SQLite for its local
    // explorer (about 3 ms a request here, docs/performance.md), a dev tool with no production counterpart.
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      X_LOCAL_OBSERVABILITY: "false",
      NO_COLOR: "1",
      FORCE_COLOR: "0",
      ...env,
    },
  });
  let output = "";
  const keep = (chunk) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = null;
  const exit = new Promise((resolve) => child.on("exit", (code, signal) => resolve((exited = { code, signal }))));

  const base = `http://127.0.0.1:${port}`;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (exited === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }, STOP_GRACE_MS);
      await exit;
      clearTimeout(timer);
    }
    if (!keepState) fs.rmSync(stateDir, { recursive: true, force: true });
  };
  /** Last resort on process exit: synchronous, no waiting. */
  const kill = () => {
    if (exited === null) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    if (!keepState) fs.rmSync(stateDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (exited !== null) {
      await stop(); // removes the persist dir, which nothing else would
      throw new Error(`wrangler dev exited (${JSON.stringify(exited)}) before it was ready:\n${output}`);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev was not ready within ${READY_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    try {
      const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`engram: wrangler dev ready at ${base} (pid ${child.pid})`);

  const headers = process.env.ENGRAM_TOKEN ? { Authorization: `Bearer ${process.env.ENGRAM_TOKEN}` } : {};
  // MCP requests ask for each result's RPC time, which engram adds only when asked.
  const mcpHeaders = { ...headers, ...TIMING_HEADERS };
  return {
    base,
    /** wrangler's DevTools inspector for the Worker (bench/cpu-profile.mjs). */
    inspectorPort,
    pid: child.pid,
    stop,
    kill,
    /** The last few KB wrangler printed, for error reports. */
    output: () => output,
    /** Resident memory of wrangler's workerd processes (the Worker and its objects). */
    memory: () => memoryOf(child.pid, "workerd"),
    async health() {
      const response = await fetch(`${base}/health`);
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`/health answered ${response.status}`);
    },
    /**
     * The same POST the tool call `{name, args}` makes (its headers and
     * JSON-RPC body), sent to /health, which the Worker answers with its JSON
     * 404 (it serves GET only there) without reading the body: a plain HTTP
     * POST, so that call minus this is the MCP layer without the cost of
     * carrying a request body (through wrangler dev's proxy, 0.5-1 ms here).
     */
    async postFloor({ name, args }) {
      const response = await fetch(`${base}/health`, {
        method: "POST",
        headers: { ...mcpHeaders, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
      });
      await response.arrayBuffer();
      if (response.status !== 404) throw new Error(`POST /health answered ${response.status}, expected the Worker's 404`);
    },
    async stats(context) {
      const response = await fetch(`${base}/api/contexts/${context}/stats`, { headers });
      if (!response.ok) throw new Error(`/api/contexts/${context}/stats answered ${response.status}: ${await response.text()}`);
      // The stats route answers {context, counts}; the report reads graph counts and databaseSize.
      const { counts } = await response.json();
      return { ...counts, databaseSize: counts.bytes };
    },
    /**
     * The calls the deployment's Registry served since it started, and since when
     * (GET /api/admin/registry-calls: {calls, since}), or null when this caller may not
     * read it (ENGRAM_TOKEN set to a token that is not the admin's).
     */
    async registryCalls() {
      const response = await fetch(`${base}/api/admin/registry-calls`, { headers });
      if (response.status === 403) {
        await response.arrayBuffer();
        return null;
      }
      if (!response.ok) throw new Error(`/api/admin/registry-calls answered ${response.status}: ${await response.text()}`);
      return response.json();
    },
    connect: (context) => connectMcp(`${base}/mcp/${context}`, mcpHeaders),
  };
}

/**
 * An engram already running at `url` (a deployment, or a `wrangler dev` of
 * your own), for the benches that only need MCP clients: nothing is started.
 * Requests carry `Authorization: Bearer $ENGRAM_TOKEN` when it is set. The
 * contexts the bench connects to are created by its first write, which needs
 * the administrator's token (or a grant that may create them); `stop` purges
 * them again (POST /api/contexts/<name>/purge, administrator only) and names
 * any it could not.
 */
export async function attachEngram({ url, log }) {
  let base;
  try {
    base = new URL(url);
  } catch {
    throw new Error(`--url must be an absolute URL such as https://engram.example.workers.dev, got "${url}"`);
  }
  if (base.protocol !== "https:" && base.protocol !== "http:") throw new Error(`--url must be http or https, got "${url}"`);
  const origin = base.origin;
  const headers = process.env.ENGRAM_TOKEN ? { Authorization: `Bearer ${process.env.ENGRAM_TOKEN}` } : {};
  const mcpHeaders = { ...headers, ...TIMING_HEADERS };
  const health = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(10_000) }).catch((error) => {
    throw new Error(`${origin}/health did not answer: ${error.message}`);
  });
  await health.arrayBuffer();
  if (!health.ok) throw new Error(`${origin}/health answered ${health.status}; is engram running there?`);
  log(`engram: using the server at ${origin}`);
  const used = new Set();
  let stopped = false;
  return {
    base: origin,
    output: () => "(a server the bench did not start: see its own logs)",
    kill: () => {
      if (!stopped && used.size > 0) log(`Contexts the bench did not purge: ${[...used].join(", ")}`);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const context of used) {
        const response = await fetch(`${origin}/api/contexts/${context}/purge?confirm=${context}`, {
          method: "POST",
          headers: { ...headers, "Content-Type": "application/json" },
        });
        await response.arrayBuffer();
        // 404: the context was never created (the bench stopped before its first write).
        if (response.ok || response.status === 404) used.delete(context);
      }
      if (used.size > 0) log(`Could not purge (administrator only): ${[...used].join(", ")}`);
    },
    async connect(context) {
      const client = await connectMcp(`${origin}/mcp/${context}`, mcpHeaders);
      used.add(context);
      return client;
    },
  };
}

/** Stops `engram` (wrangler dev) when the bench exits or is interrupted, so no server outlives its run. */
export function stopWithProcess(engram, log) {
  process.on("exit", () => engram.kill());
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => {
      log(`${signal}: stopping wrangler dev`);
      engram.kill();
      process.exit(130);
    });
  }
}
