#!/usr/bin/env node
/**
 * npm start: `wrangler dev` on http://127.0.0.1:8787 (wrangler.toml [dev]), with the
 * caller's flags passed through, so `npm start -- --port 8790` (or --ip, --local-protocol
 * ...) overrides the default instead of repeating a flag wrangler accepts once.
 *
 * The Worker never reads `request.cf`, so wrangler's fetch of the real one
 * (workers.cloudflare.com/cf.json, which prints a stack trace offline) is turned
 * off unless CLOUDFLARE_CF_FETCH_ENABLED is set by the caller.
 */
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const wrangler = join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false" };
const child = spawn(process.execPath, [wrangler, "dev", ...process.argv.slice(2)], { stdio: "inherit", env });

// Ctrl-C reaches wrangler through the terminal; a signal sent to this process alone is passed on.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on("error", (error) => {
  console.error(`Cannot start wrangler: ${error.message}`);
  process.exit(1);
});
