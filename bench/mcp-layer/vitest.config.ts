/**
 * `npm run bench:mcp`: the MCP layer's per-request cost inside workerd
 * (bench/mcp-layer/mcp.bench.ts). Not part of `npm test`: it measures, it
 * does not check. MCPB_* variables reach the test as bindings; ADMIN_TOKEN is
 * set so requests authenticate with a bearer token as a deployment's do.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const knobs = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("MCPB_")) as [string, string][]);

export default defineConfig({
  root,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: path.join(root, "wrangler.toml") },
      miniflare: { bindings: { ...knobs, ADMIN_TOKEN: "bench-admin-token" } },
    }),
  ],
  test: {
    include: ["bench/mcp-layer/**/*.bench.ts"],
    testTimeout: 3_600_000,
  },
});
