import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        // Everything that runs inside workerd: tools, stores, routes, the page's server side.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // No test leaves the machine: every outbound fetch of the Worker or an object (an OAuth client's
            // metadata document, say) gets this answer instead of a DNS lookup and a connection.
            miniflare: { outboundService: () => new Response("outbound fetch is disabled in the workers tests", { status: 502 }) },
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
