/**
 * What the end-to-end tests need around them: a real `wrangler dev`, started
 * as `npm start` starts it (scripts/start.mjs, the port passed as a user
 * would), on a free loopback port with a throwaway persist and cache directory, and Debian's
 * Chromium driven by playwright-core with a fresh profile. Everything
 * started here is stopped by the returned `stop`/`close`, which the test
 * calls in `afterAll` whatever happened.
 *
 * Chromium is required, never optional: without /usr/bin/chromium the
 * test fails and says how to install it (CI's .ci/run installs it).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = resolve(import.meta.dirname, "../..");
const START = join(ROOT, "scripts/start.mjs");
/** Bound on wrangler's start (build, bundle, workerd); a cold CI machine takes ~10 s. */
const START_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;

export function requireChromium(path = CHROMIUM): void {
  if (!existsSync(path)) {
    throw new Error(`Chromium is missing at ${path}; the web page's end-to-end test needs it. Install it: apt-get update && apt-get install -y chromium`);
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((done, failed) => {
    const server = createServer();
    server.once("error", failed);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

export interface Dev {
  url: string;
  /** Miniflare's cache directory for this server (MINIFLARE_CACHE_DIR), where a fetched `Request.cf` would be kept. */
  cacheDir: string;
  stop(): Promise<void>;
  output(): string;
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Kills the process group (wrangler and its workerd); SIGKILL if it has not gone within STOP_TIMEOUT_MS. */
async function killGroup(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || exited(child)) return;
  const gone = new Promise<void>((done) => child.once("exit", () => done()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), sig);
    } catch {
      // Already gone.
    }
  };
  signal("SIGTERM");
  const timer = new Promise<"timeout">((done) => setTimeout(() => done("timeout"), STOP_TIMEOUT_MS).unref());
  if ((await Promise.race([gone, timer])) === "timeout") {
    signal("SIGKILL");
    await gone;
  }
}

/** Starts `npm start -- --port <free port> ...` with `vars` (e.g. ADMIN_TOKEN) and waits until /health answers. */
export async function startDev(vars: Record<string, string> = {}): Promise<Dev> {
  const [port, inspector] = [await freePort(), await freePort()];
  const dir = await mkdtemp(join(tmpdir(), "engram-e2e-"));
  // An empty env file: wrangler then reads neither a developer's .dev.vars nor .env, so only `vars` apply.
  const envFile = join(dir, "empty.env");
  await writeFile(envFile, "");
  const cacheDir = join(dir, "cache");
  const args = [START, "--port", String(port), "--inspector-port", String(inspector)];
  args.push("--persist-to", join(dir, "state"), "--env-file", envFile);
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  // As a user's shell would: start.mjs decides whether wrangler fetches `Request.cf`, not a developer's
  // own setting nor vitest's NODE_ENV=test (with which miniflare never fetches it).
  const { CLOUDFLARE_CF_FETCH_ENABLED: _cf, NODE_ENV: _mode, ...env } = process.env;
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    // Its own process group, so stop() ends wrangler and the workerd it starts together.
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...env, CI: "true", NO_COLOR: "1", WRANGLER_SEND_METRICS: "false", WRANGLER_LOG: "info", MINIFLARE_CACHE_DIR: cacheDir },
  });
  let log = "";
  child.stdout?.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (log += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await killGroup(child);
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited(child)) break;
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      if (r.ok) return { url, cacheDir, stop, output: () => log };
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  await stop();
  throw new Error(`wrangler dev did not answer on ${url}/health within ${START_TIMEOUT_MS / 1000} s.\n--- wrangler output ---\n${log.slice(-4000)}`);
}

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a fresh profile directory, removed on close. */
export async function launchChromium(): Promise<Browser> {
  requireChromium();
  const profile = await mkdtemp(join(tmpdir(), "engram-e2e-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1400, height: 900 },
    timeout: 60_000,
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
