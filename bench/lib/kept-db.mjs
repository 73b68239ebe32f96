/**
 * What bench/profile-search.mjs and bench/profile-write.mjs share: a scratch
 * copy of a context's kept database (with its -wal and -shm files) and the
 * project's TypeScript bundled with esbuild for Node, so the real code runs
 * on Node's SQLite. `cloudflare:workers` resolves to a bare DurableObject
 * base class that keeps `ctx` and `env`, as the runtime's does.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

const workersStub = {
  name: "workers-stub",
  setup(b) {
    b.onResolve({ filter: /^cloudflare:workers$/ }, () => ({ path: "workers", namespace: "stub" }));
    b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
      contents: "export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }",
    }));
  },
};

/**
 * Runs `fn(copy, load)` with `copy` the path of a scratch copy of `db` and
 * `load(source)` importing a bundle of `source` (ES module text resolved from
 * the project's root); removes the scratch directory afterwards.
 */
export async function withKeptDb(db, fn) {
  if (!db) throw new Error("--db <path to a context's .sqlite file> is required");
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "engram-profile-"));
  try {
    const copy = path.join(tmp, "context.sqlite");
    fs.copyFileSync(db, copy);
    for (const suffix of ["-wal", "-shm"]) if (fs.existsSync(db + suffix)) fs.copyFileSync(db + suffix, copy + suffix);
    let bundles = 0;
    const load = async (source) => {
      const outfile = path.join(tmp, `bundle-${bundles++}.mjs`);
      await build({
        stdin: { contents: source, resolveDir: root, loader: "ts" },
        bundle: true,
        format: "esm",
        platform: "node",
        outfile,
        logLevel: "error",
        loader: { ".sql": "text" },
        plugins: [workersStub],
      });
      return import(pathToFileURL(outfile).href);
    };
    return await fn(copy, load);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
