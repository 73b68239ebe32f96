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
/** A time as the admin API shows one (src/api/times.ts), and so the admin command prints it. */
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Runs scripts/<name>.mjs as `npm run <name> -- ...args` does, with none of ENGRAM_URL, ENGRAM_TOKEN, ADMIN_TOKEN unless `env` sets them; never rejects. */
function script(name: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, "scripts", `${name}.mjs`), ...args],
      { cwd: ROOT, env: { ...process.env, ENGRAM_URL: "", ENGRAM_TOKEN: "", ADMIN_TOKEN: "", ...env } },
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

  it("says exactly what was written when the server refuses a later part, and a second run only finds duplicates", async () => {
    const file = join(dir, "stops.jsonl");
    // 200 entities of 16 KB, more than one 3 MB part, with a bad line among them; then a line over the 4 MB body limit, sent alone.
    const entity = (i: number) => JSON.stringify({ type: "entity", name: `big-${i}`, entityType: "t", observations: ["x".repeat(16_000)] });
    const good = Array.from({ length: 200 }, (_, i) => entity(i));
    const huge = JSON.stringify({ type: "entity", name: "huge", entityType: "t", observations: ["y".repeat(4_500_000)] });
    await writeFile(file, [...good.slice(0, 4), "not json", ...good.slice(4), huge].join("\n"));
    const report = (counts: Record<string, number>) => ({
      context: "cli-stop",
      entitiesCreated: 0,
      entitiesMerged: 0,
      observationsAdded: 0,
      relationsCreated: 0,
      archivedAdded: 0,
      duplicates: 0,
      rejected: [{ line: 5, error: "not valid JSON" }],
      ...counts,
    });
    const refused = "HTTP 413: Request bodies are limited to 4194304 bytes";
    const after = "line 202 and the lines after were not applied. Importing the file again is safe: what is already there counts as duplicates.";

    const first = await script("import", [file, "--url", dev.url, "--context", "cli-stop"]);
    expect(first.code).toBe(1);
    expect(oneLine(first.stderr)).toBe(
      `Import into "cli-stop" stopped at line 202: ${refused}. Written by lines 1-201: entitiesCreated 200, observationsAdded 200 (1 line rejected, listed in the report on stdout); ${after}`,
    );
    expect(JSON.parse(first.stdout)).toEqual(report({ entitiesCreated: 200, observationsAdded: 200 }));

    const again = await script("import", [file, "--url", dev.url, "--context", "cli-stop"]);
    expect(oneLine(again.stderr)).toBe(
      `Import into "cli-stop" stopped at line 202: ${refused}. Written by lines 1-201: nothing (1 line rejected, listed in the report on stdout); ${after}`,
    );
    expect(JSON.parse(again.stdout)).toEqual(report({ duplicates: 200 }));
  });

  it("refuses a file that is not UTF-8 in one line, naming the line, and sends nothing", async () => {
    const file = join(dir, "latin1.jsonl");
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from('{"type":"entity","name":"Tea","entityType":"t","observations":[]}\n{"type":"entity","name":"Caf'),
        Buffer.from([0xe9]),
        Buffer.from('","entityType":"t","observations":[]}\n'),
      ]),
    );
    const r = await script("import", [file, "--url", dev.url, "--context", "cli-latin1"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(oneLine(r.stderr)).toBe(
      `${file} must be UTF-8, but line 2 is not. Convert it first (for a Latin-1 file: iconv -f latin1 -t utf-8); nothing was written.`,
    );
    // Not even the good first line was sent: the context was never written to, so never registered.
    const listed = await script("admin", ["--url", dev.url, "context", "list"]);
    expect(JSON.parse(listed.stdout).contexts.map((c: { name: string }) => c.name)).not.toContain("cli-latin1");
  });

  it("says nothing was written when the server refuses the first part", async () => {
    const file = join(dir, "refused.jsonl");
    await writeFile(file, `{"type":"entity","name":"B","entityType":"t","observations":[]}\n`);
    const r = await script("import", [file, "--url", dev.url, "--context", "Not A Name"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(oneLine(r.stderr)).toMatch(/^Import into "Not A Name" stopped at lines 1-2: HTTP 400: Context names .+\. Nothing was written\.$/);
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
    const out = join(dir, "refused-export.jsonl");
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

describe("npm run admin", () => {
  it("names the address it could not reach, from --url or ENGRAM_URL, and how to give another, in one line", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    for (const r of [await script("admin", ["--url", url, "token", "list"]), await script("admin", ["token", "list"], { ENGRAM_URL: url })]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(oneLine(r.stderr)).toMatch(
        new RegExp(`^Cannot reach the server at ${url}: connect ECONNREFUSED [^ ]+\\. Is the server running there\\? --url or ENGRAM_URL gives another address\\.$`),
      );
    }
  });
});

describe("npm run admin tokens", () => {
  /** The JSON after "HTTP <status>: " on stderr. */
  const refusal = (stderr: string) => JSON.parse(stderr.replace(/^HTTP \d+: /, "")) as { error: string; message: string };
  // Tokens work only on a server with an ADMIN_TOKEN: open local mode (`dev`) mints none.
  const ADMIN = `cli-admin-${crypto.randomUUID()}`;
  let secured: Dev;
  beforeAll(async () => {
    secured = await startDev({ ADMIN_TOKEN: ADMIN });
  });
  afterAll(async () => {
    await secured?.stop();
  });
  const admin = (...args: string[]) => script("admin", ["--url", secured.url, "--token", ADMIN, ...args]);

  it("refuses to mint in open local mode with the server's reason, and lists tokens there", async () => {
    const r = await script("admin", ["--url", dev.url, "token", "create", "cli-open", "--grant", "*=read"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^HTTP 409: /);
    expect(refusal(r.stderr)).toMatchObject({ error: "conflict", message: expect.stringContaining("open local mode (no ADMIN_TOKEN)") });
    expect(refusal(r.stderr).message).toContain("tokens need an ADMIN_TOKEN");
    const listed = await script("admin", ["--url", dev.url, "token", "list"]);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).tokens).toEqual([]);
  });

  it("refuses a grant with more than 8 '*' and a name starting with tok_, minting nothing", async () => {
    const stars = await admin("token", "create", "cli-stars", "--grant", "*a*a*a*a*a*a*a*a*a=read");
    expect(stars.code).toBe(1);
    expect(stars.stderr).toMatch(/^HTTP 400: /);
    expect(refusal(stars.stderr).message).toBe('grants.0.context: "*a*a*a*a*a*a*a*a*a" has 9 "*"; a grant holds at most 8');
    const named = await admin("token", "create", "tok_d8bea437f0824a58", "--grant", "x=read");
    expect(named.code).toBe(1);
    expect(refusal(named.stderr).message).toBe(
      'name: name must not start with "tok_": that prefix is reserved for token ids, so a name can never be mistaken for one',
    );
    const listed = await admin("token", "list");
    expect(JSON.parse(listed.stdout).tokens.map((t: { name: string }) => t.name)).not.toContain("cli-stars");
  });

  it("revokes by id, or by name with --by name, and treats another --by as a usage error", async () => {
    const created = await admin("token", "create", "cli-carol", "--grant", "team-*=write");
    expect(created.code).toBe(0);
    const { id, createdAt } = JSON.parse(created.stdout) as { id: string; createdAt: string };
    expect(createdAt).toMatch(ISO_TIME);
    const bad = await admin("token", "revoke", id, "--by", "hash");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--by must be id or name, not "hash"');
    const byName = await admin("token", "revoke", "cli-carol", "--by", "name");
    expect(byName.code).toBe(0);
    expect(JSON.parse(byName.stdout).token).toMatchObject({ id, name: "cli-carol", revokedAt: expect.stringMatching(ISO_TIME) });
    const again = await admin("token", "revoke", id);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).token.id).toBe(id);
  });
});

describe("npm run admin oauth", () => {
  /** An app connected through the consent page in open local mode (no token asked), as a browser would post it. */
  async function connectApp(): Promise<string> {
    const redirect = "http://127.0.0.1:9/callback";
    const registered = await fetch(`${dev.url}/oauth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ redirect_uris: [redirect], client_name: "CLI App", token_endpoint_auth_method: "none" }),
    });
    const { client_id } = (await registered.json()) as { client_id: string };
    const q = new URLSearchParams({
      response_type: "code",
      client_id,
      redirect_uri: redirect,
      state: "s",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const url = `${dev.url}/authorize?${q}`;
    const page = await fetch(url);
    const handle = /name="handle" value="([^"]+)"/.exec(await page.text())?.[1] ?? "";
    const cookie = (page.headers.get("Set-Cookie") ?? "").split(";")[0] ?? "";
    const body = new URLSearchParams({ handle, decision: "allow", rows: "1", grant: "0", "context-0": "*", "role-0": "read" });
    const posted = await fetch(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie }, body, redirect: "manual" });
    expect(posted.status).toBe(302);
    return client_id;
  }

  it("lists the grants apps got and revokes one by id; an unknown id is refused with 404 and exit code 1", async () => {
    const clientId = await connectApp();
    const listed = await script("admin", ["--url", dev.url, "oauth", "list"]);
    expect(listed.code).toBe(0);
    const grant = (JSON.parse(listed.stdout).grants as { id: string; clientId: string; clientName: string; tokenName: string; grants: unknown }[]).find(
      (g) => g.clientId === clientId,
    );
    expect(grant).toMatchObject({ clientName: "CLI App", tokenName: "local", grants: [{ context: "*", role: "read" }] });
    const revoked = await script("admin", ["--url", dev.url, "oauth", "revoke", String(grant?.id)]);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).grant).toMatchObject({ id: grant?.id, revokedAt: expect.stringMatching(ISO_TIME) });
    const unknown = await script("admin", ["--url", dev.url, "oauth", "revoke", "oag_0000000000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^HTTP 404: /);
    expect(JSON.parse(unknown.stderr.replace(/^HTTP \d+: /, "")).message).toContain("oag_0000000000000000");
  });
});
