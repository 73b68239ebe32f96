import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { cimdDocument } from "./test/helpers/cimd.ts";

/**
 * workerd prints every abort the fault tests cause on purpose (test/context/faults.test.ts: `ctx.abort()` mid-batch,
 * `abortAllDurableObjects()`) as an uncaught exception with its stack, through the Workers plugin's own log handler,
 * which no test or option reaches. Those exact lines are dropped here so a passing run prints no error; every other
 * line of workerd's, and any abort with another message, still shows. So is vite's warning that a dependency's
 * sourcemap names sources its package does not ship (the MCP SDK's): the dependency's matter, not a test's.
 */
const DEPENDENCY_SOURCEMAP = /^Sourcemap for "[^"]*\/node_modules\/[^"]*" points to missing source files\s*$/;
const DELIBERATE_ABORTS = ["jsg.Error: injected abort mid-batch", "jsg.Error: Application called abortAllDurableObjects()"];
let droppedAbort = false;
/** Whether a chunk written to the console is one of the lines above. */
function deliberate(chunk: string | Uint8Array): boolean {
  const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  if (DEPENDENCY_SOURCEMAP.test(text)) return true;
  const abort = DELIBERATE_ABORTS.some((line) => text.includes(line));
  const itsStack = droppedAbort && /^stack: \S*workerd/.test(text);
  droppedAbort = abort || (droppedAbort && itsStack);
  return abort || itsStack;
}
for (const stream of [process.stdout, process.stderr]) {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => deliberate(chunk) || write(chunk, ...rest)) as typeof stream.write;
}

export default defineConfig({
  test: {
    projects: [
      {
        // Everything that runs inside workerd: tools, stores, routes, the page's server side.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // No test leaves the machine: every outbound fetch of the Worker or an object gets this answer instead
            // of a DNS lookup and a connection; the OAuth client metadata documents of test/helpers/cimd.ts are served.
            miniflare: {
              outboundService: (request: Request) => cimdDocument(request.url) ?? new Response("outbound fetch is disabled in the workers tests", { status: 502 }),
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/**/*.test.ts"],
          testTimeout: 30_000,
          // One runtime runs the files in turn rather than one per file: each file starts no workerd and loads
          // no module graph of its own. Files share module caches but no data, since each test writes to a
          // context name of its own (freshContext); they pass alone, together and in shuffled order.
          isolate: false,
        },
      },
      {
        // The web page end to end: `wrangler dev` on a free loopback port, driven by headless Chromium
        // (test/e2e/). In Node, after the workers project, so the two do not compete for the CPU.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.e2e.ts"],
          environment: "node",
          testTimeout: 120_000,
          hookTimeout: 120_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
