/**
 * `npm run bench:engine`: the search engine timed inside a Durable Object
 * under workerd (bench/engine/search.bench.ts). Not part of `npm test`:
 * it measures, it does not check. ENGINE_* variables reach the test as bindings.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const knobs = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("ENGINE_")) as [string, string][]);

export default defineConfig({
  root,
  plugins: [cloudflareTest({ wrangler: { configPath: path.join(root, "wrangler.toml") }, miniflare: { bindings: knobs } })],
  test: {
    include: ["bench/engine/**/*.bench.ts"],
    testTimeout: 3_600_000,
  },
});
