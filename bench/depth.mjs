#!/usr/bin/env node
/**
 * `npm run bench:depth`: whether search_nodes and recall find the best match
 * however old it is (bench/engine/depth.bench.ts, inside a Durable Object
 * under workerd, on bench/lib/depth.mjs's corpus), at the sizes asked.
 *
 *   npm run bench:depth                                  # 5,000 entities
 *   npm run bench:depth -- --entities 5000,20000         # one size after the other
 *   npm run bench:depth -- --seed 2 --repeat 20 --mix 200
 *
 * Prints the bench's tables (agreement@10 with an exhaustive scorer, needle
 * recall@10 per age, p50/p95/p99 in the object and over RPC, bytes per entity).
 */
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: opts } = parseArgs({
  options: {
    entities: { type: "string", default: "5000" },
    seed: { type: "string", default: "1" },
    repeat: { type: "string", default: "10" },
    mix: { type: "string", default: "100" },
    help: { type: "boolean", default: false },
  },
});
if (opts.help) {
  console.log("npm run bench:depth -- [--entities 5000,20000] [--seed 1] [--repeat 10] [--mix 100]");
  process.exit(0);
}
for (const name of ["seed", "repeat", "mix"]) {
  if (!/^[1-9]\d*$/.test(opts[name])) throw new Error(`--${name} must be a positive whole number, got "${opts[name]}"`);
}
if (!/^[1-9]\d*(,[1-9]\d*)*$/.test(opts.entities)) throw new Error(`--entities must be positive whole numbers separated by commas, got "${opts.entities}"`);

const run = spawnSync(
  process.execPath,
  [
    path.join(root, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "--config",
    path.join(root, "bench", "engine", "vitest.config.ts"),
    "bench/engine/depth.bench.ts",
  ],
  {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, ENGINE_DEPTH: opts.entities, ENGINE_SEED: opts.seed, ENGINE_REPEAT: opts.repeat, ENGINE_DEPTH_MIX: opts.mix },
  },
);
process.exit(run.status ?? 1);
