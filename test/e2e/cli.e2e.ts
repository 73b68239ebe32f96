/**
 * The command line as a new user meets it, in Node: `npm start -- --port N`
 * serves on that port and starts quietly (no `Request.cf` fetch, no stale
 * types warning), and `npm run import` / `npm run export` fail with one line
 * and an exit code (scripts/cli.mjs), never a stack trace.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVALID_CONTEXT_NAME } from "../../src/limits";
import { freePort, startDev, type Dev } from "./harness";

const ROOT = resolve(import.meta.dirname, "../..");

/** Runs scripts/<name>.mjs as `npm run <name> -- ...args` does; never rejects. */
function script(name: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, "scripts", `${name}.mjs`), ...args],
      { cwd: ROOT, env: { ...process.env, ENGRAM_URL: "", ENGRAM_TOKEN: "" } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** One line of stderr, no stack frame. */
const oneLine = (stderr: string) => {
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  return stderr.trim();
};

let dev: Dev;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "engram-cli-"));
  dev = await startDev();
});

afterAll(async () => {
  await dev?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("npm start", () => {
  it("serves on the port given after --, quietly", async () => {
    expect(dev.url).not.toBe("http://127.0.0.1:8787");
    expect(dev.output()).toContain(`Ready on ${dev.url}`);
    expect(dev.output()).not.toMatch(/Request\.cf|ENOTFOUND|EAI_AGAIN|out of date/);
    // The Worker never reads request.cf, so it is not fetched (nor cached) at all.
    expect(existsSync(join(dev.cacheDir, "cf.json"))).toBe(false);
  });
});

describe("npm run import and export", () => {
  it("round-trips a file through a context", async () => {
    const file = join(dir, "in.jsonl");
    const out = join(dir, "out.jsonl");
    const lines = [
      { type: "entity", name: "Alice", entityType: "person", observations: ["likes tea"] },
      { type: "relation", from: "Alice", to: "Alice", relationType: "knows" },
    ].map((l) => JSON.stringify(l));
    await writeFile(file, lines.join("\n"));
    const imported = await script("import", [file, "--url", dev.url, "--context", "cli-io"]);
    expect(imported).toMatchObject({ code: 0, stderr: "" });
    expect(JSON.parse(imported.stdout)).toMatchObject({ context: "cli-io", entitiesCreated: 1, relationsCreated: 1, rejected: [] });
    expect(await script("export", ["--url", dev.url, "--context", "cli-io", "--out", out])).toMatchObject({ code: 0, stderr: "" });
    expect(await readFile(out, "utf8")).toBe(`${lines.join("\n")}\n`);
  });

  it("exits 3 with the report when lines are rejected", async () => {
    const file = join(dir, "bad.jsonl");
    await writeFile(file, `{"type":"entity","name":"B","entityType":"t","observations":[]}\nnot json\n`);
    const r = await script("import", [file, "--url", dev.url, "--context", "cli-bad"]);
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout)).toMatchObject({ entitiesCreated: 1, rejected: [{ line: 2, error: "not valid JSON" }] });
  });

  it("says in one line that a file is missing", async () => {
    const r = await script("import", [join(dir, "nope.jsonl"), "--url", dev.url]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(`Cannot read ${join(dir, "nope.jsonl")}: no such file or directory`);
  });

  it("says in one line that the server cannot be reached", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const file = join(dir, "one.jsonl");
    await writeFile(file, "");
    for (const r of [await script("import", [file, "--url", url]), await script("export", ["--url", url])]) {
      expect(r.code).toBe(1);
      expect(oneLine(r.stderr)).toMatch(new RegExp(`^Cannot reach the server at ${url}: connect ECONNREFUSED`));
    }
  });

  it("passes the server's refusal on in one line and writes no file", async () => {
    const out = join(dir, "refused.jsonl");
    const r = await script("export", ["--url", dev.url, "--context", "Not A Name", "--out", out]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(`Export of "Not A Name" failed: HTTP 400: ${INVALID_CONTEXT_NAME}`);
    expect(existsSync(out)).toBe(false);
  });

  it("treats an unknown flag as a usage error (exit 2) instead of ignoring it", async () => {
    const r = await script("export", ["--url", dev.url, "--contxt", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option '--contxt'");
    expect(r.stderr).toContain("Usage: npm run export");
  });
});
