/**
 * The Claude Code plugin (integrations/claude-code/) end to end, each hook run
 * as Claude Code runs a command hook: the command from hooks/hooks.json
 * through `sh -c`, the hook's JSON on stdin, CLAUDE_PLUGIN_ROOT and
 * CLAUDE_PROJECT_DIR in the environment, and stdout read as Claude Code
 * reads it (JSON with hookSpecificOutput.additionalContext, else plain text).
 * Against `wrangler dev` with an ADMIN_TOKEN, so the token path is the one a
 * deployment takes; failures against a closed port, a wrong token and a
 * small local HTTP server that answers late or with an error status.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { appendFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENTITIES, RELATIONS } from "../../bench/plugin/corpus.mjs";
import { freePort, startDev, type Dev } from "./harness";

const PLUGIN = resolve(import.meta.dirname, "../../integrations/claude-code");
const CONTEXT = "plugin-e2e";
/** The bound for every hook, failures included. */
const HOOK_BOUND_MS = 5000;

type Event = "SessionStart" | "UserPromptSubmit" | "PreCompact" | "SessionEnd";
interface HookGroup {
  matcher?: string;
  hooks: { type: string; command: string; timeout?: number }[];
}
const hooksJson = JSON.parse(readFileSync(join(PLUGIN, "hooks/hooks.json"), "utf8")) as { hooks: Record<Event, HookGroup[]> };

/** The command Claude Code would run for `event` with this matcher value (source, trigger or reason). */
function commandFor(event: Event, matchValue?: string): string {
  const group = hooksJson.hooks[event].find((g) => !g.matcher || matchValue === undefined || new RegExp(`^(?:${g.matcher})$`).test(matchValue));
  const command = group?.hooks.find((h) => h.type === "command")?.command;
  if (!command) throw new Error(`hooks.json runs no command for ${event} ${matchValue ?? ""}`);
  return command;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** What reaches the model: hookSpecificOutput.additionalContext, or stdout as text. */
  context: string;
}

let projectDir: string;

/** Runs the hook for `input.hook_event_name` as Claude Code does, with ENGRAM_URL and ENGRAM_TOKEN from `engram`. */
function runHook(input: Record<string, unknown> & { hook_event_name: Event }, engram: { url: string; token?: string }, matchValue?: string): Promise<Run> {
  const command = commandFor(input.hook_event_name, matchValue);
  // Claude Code passes its own environment on; the engram settings are only the ones given here.
  const { ENGRAM_URL: _url, ENGRAM_TOKEN: _token, ENGRAM_RECALL_MIN_SCORE: _cut, ...inherited } = process.env;
  const env = {
    ...inherited,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`,
    CLAUDE_PLUGIN_ROOT: PLUGIN,
    CLAUDE_PROJECT_DIR: projectDir,
    ENGRAM_URL: engram.url,
    ...(engram.token !== undefined ? { ENGRAM_TOKEN: engram.token } : {}),
  };
  const started = performance.now();
  return new Promise((done) => {
    const child = spawn("sh", ["-c", command], { cwd: projectDir, env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("close", (code) => {
      let context = stdout.trim();
      try {
        const parsed = JSON.parse(stdout) as { hookSpecificOutput?: { additionalContext?: string } };
        context = parsed.hookSpecificOutput?.additionalContext ?? "";
      } catch {
        // Plain text: Claude Code adds it as it is.
      }
      done({ code, stdout, stderr, ms: performance.now() - started, context });
    });
    child.stdin.end(JSON.stringify({ session_id: "s", transcript_path: "", cwd: projectDir, permission_mode: "default", ...input }));
  });
}

/** A transcript line as Claude Code writes one. */
const line = (entry: Record<string, unknown>) =>
  `${JSON.stringify({ sessionId: "x", cwd: projectDir, version: "2.1.0", timestamp: "2026-05-04T09:00:00.000Z", ...entry })}\n`;
const userSays = (text: string, uuid: string) => line({ type: "user", uuid, message: { role: "user", content: text } });
const assistant = (uuid: string, content: unknown[]) => line({ type: "assistant", uuid, message: { role: "assistant", model: "claude", content } });
const toolResult = (uuid: string, id: string) =>
  line({ type: "user", uuid, message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "ok" }] } });

let dev: Dev;
let token: string;
let client: Client;
let dir: string;

const ok = (engramUrl = `${dev.url}/mcp/${CONTEXT}`) => ({ url: engramUrl, token });
const observationsOf = async (name: string) => {
  const opened = await client.callTool({ name: "open_nodes", arguments: { names: [name] } });
  const entities = (opened.structuredContent as { entities: { name: string; observations: string[] }[] }).entities;
  return entities.find((e) => e.name === name)?.observations;
};

beforeAll(async () => {
  token = randomBytes(24).toString("hex");
  dir = await mkdtemp(join(tmpdir(), "engram-plugin-"));
  projectDir = join(dir, "shop-api");
  await mkdir(projectDir);
  dev = await startDev({ ADMIN_TOKEN: token });
  client = new Client({ name: "plugin-e2e", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp/${CONTEXT}`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  for (const [name, args] of [
    ["create_entities", { entities: ENTITIES }],
    ["create_relations", { relations: RELATIONS }],
    ["mark_important", { items: ["entity:Release checklist"], important: true }],
  ] as const) {
    expect((await client.callTool({ name, arguments: args })).isError).toBeFalsy();
  }
});

afterAll(async () => {
  await client?.close();
  await dev?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("SessionStart", () => {
  it("injects the context's brief, marked items first, at startup, resume, clear and compact", async () => {
    for (const source of ["startup", "resume", "clear", "compact"]) {
      const run = await runHook({ hook_event_name: "SessionStart", source }, ok(), source);
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(run.context).toContain(`# Memory brief of context "${CONTEXT}"`);
      expect(run.context).toContain("## Marked important");
      expect(run.context.indexOf('"Release checklist"')).toBeLessThan(run.context.indexOf("## Most"));
      expect(run.context.length).toBeLessThanOrEqual(12_000);
    }
  });
});

describe("UserPromptSubmit", () => {
  it("injects the memory that answers the prompt, with its key", async () => {
    const run = await runHook({ hook_event_name: "UserPromptSubmit", prompt: "How do we deploy to production?" }, ok());
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.context).toContain("[entity:Deploy pipeline]");
    expect(run.context).toContain("wrangler deploy");
    expect(run.context.length).toBeLessThanOrEqual(8000);
    const billing = await runHook({ hook_event_name: "UserPromptSubmit", prompt: "should I store invoice amounts as floats?" }, ok());
    expect(billing.context).toContain("[entity:Billing service]");
    expect(billing.context).not.toContain("[entity:Deploy pipeline]");
  });

  it("injects nothing for chit-chat, and leaves the prompt alone", async () => {
    for (const prompt of ["thanks, looks good", "nice work!", "try again", "ok"]) {
      const run = await runHook({ hook_event_name: "UserPromptSubmit", prompt }, ok());
      expect(run).toMatchObject({ code: 0, stdout: "", stderr: "" });
    }
  });
});

describe("SessionEnd and PreCompact capture", () => {
  const session = "7f3c2a10-5b1e-4c7e-9d2a-0c1e2f3a4b5c";
  const entity = `Claude Code session ${session}`;
  const transcript = () => join(dir, `${session}.jsonl`);
  const secrets = {
    anthropic: "sk-ant-api03-Zx8yQ2vR7tLm4NpK9sWc3Hd6Jf1Gb5Ae0Uo",
    engramToken: `eg_${"A1b2C3d4E5f6G7h8".repeat(2)}I9j0K1l2M3n4O5p`,
    bearer: "Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    urlPassword: "postgres://shop:s3cretPassw0rd@db.internal:5432/shop",
    privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----",
    assignment: "STRIPE_SECRET=whsec_4eC39HqLyjWDarjtT1zdp7dc",
  };

  beforeAll(async () => {
    await writeFile(
      transcript(),
      line({ type: "file-history-snapshot", messageId: "m0", snapshot: { trackedFileBackups: {} } }) +
        userSays("The checkout total is off by one cent on discounted carts; fix the rounding in the tokenizer cache of pricing", "u1") +
        assistant("a1", [
          { type: "text", text: "I'll look at the pricing module." },
          { type: "tool_use", id: "t1", name: "Read", input: { file_path: join(projectDir, "src/pricing.ts") } },
        ]) +
        toolResult("u2", "t1") +
        assistant("a2", [
          {
            type: "tool_use",
            id: "t2",
            name: "Edit",
            input: { file_path: join(projectDir, "src/pricing.ts"), old_string: "Math.round", new_string: "roundHalfEven" },
          },
          { type: "tool_use", id: "t3", name: "Write", input: { file_path: join(projectDir, "test/rounding.test.ts"), content: "..." } },
        ]) +
        toolResult("u3", "t2") +
        userSays(`Use this key for the staging run: ${secrets.anthropic}, and the db ${secrets.urlPassword}`, "u4") +
        assistant("a3", [
          {
            type: "tool_use",
            id: "t4",
            name: "Bash",
            input: { command: `curl -H 'Authorization: ${secrets.bearer}' https://staging/api && ENGRAM=${secrets.engramToken} npm test` },
          },
          { type: "tool_use", id: "t5", name: "Bash", input: { command: `echo '${secrets.privateKey}' > key && ${secrets.assignment} npm run e2e` } },
        ]) +
        toolResult("u5", "t4") +
        assistant("a4", [{ type: "text", text: "Fixed: discounted cart totals now use banker's rounding (roundHalfEven) in src/pricing.ts, with a test." }]),
    );
  });

  it("writes what the session asked, edited, ran and concluded, found afterwards by recall", async () => {
    const run = await runHook({ hook_event_name: "SessionEnd", session_id: session, transcript_path: transcript(), reason: "prompt_input_exit" }, ok());
    expect(run).toMatchObject({ code: 0, stdout: "", stderr: "" });
    const observations = (await observationsOf(entity)) ?? [];
    expect(observations.join("\n")).toContain("User asked: The checkout total is off by one cent");
    expect(observations).toContain("Edited or created files: src/pricing.ts, test/rounding.test.ts");
    expect(observations.find((o) => o.startsWith("Ran commands: "))).toContain("npm run e2e");
    expect(observations).toContain("Closing summary: Fixed: discounted cart totals now use banker's rounding (roundHalfEven) in src/pricing.ts, with a test.");
    expect(observations[0]).toBe("Claude Code session in project shop-api, started 2026-05-04T09:00:00.000Z");

    const recalled = await runHook({ hook_event_name: "UserPromptSubmit", prompt: "what did we change about rounding of discounted cart totals?" }, ok());
    expect(recalled.context).toContain(`[entity:${entity}]`);
  });

  it("redacts keys, tokens, bearer headers, private keys and passwords before writing", async () => {
    const text = ((await observationsOf(entity)) ?? []).join("\n");
    for (const secret of [
      secrets.anthropic,
      secrets.engramToken,
      "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
      "s3cretPassw0rd",
      "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
      "whsec_4eC39HqLyjWDarjtT1zdp7dc",
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain("postgres://shop:[REDACTED]@db.internal:5432/shop");
    expect(text).toContain("Authorization: Bearer [REDACTED]");
  });

  it("updates the same entity when the session is captured again, never duplicating it", async () => {
    const before = (await observationsOf(entity)) ?? [];
    const pre = await runHook(
      { hook_event_name: "PreCompact", session_id: session, transcript_path: transcript(), trigger: "auto", custom_instructions: "" },
      ok(),
      "auto",
    );
    expect(pre).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(await observationsOf(entity)).toEqual(before);

    await appendFile(transcript(), userSays("also round the tax line", "u6") + assistant("a5", [{ type: "text", text: "Tax lines now round half-even too." }]));
    const end = await runHook({ hook_event_name: "SessionEnd", session_id: session, transcript_path: transcript(), reason: "other" }, ok());
    expect(end).toMatchObject({ code: 0, stderr: "" });
    const after = (await observationsOf(entity)) ?? [];
    expect(new Set(after).size).toBe(after.length);
    expect(after).toContain("User asked: also round the tax line");
    expect(after).toContain("Closing summary: Tax lines now round half-even too.");
    expect(after.filter((o) => o.startsWith("Closing summary: "))).toHaveLength(1);

    const found = await client.callTool({ name: "search_nodes", arguments: { query: session } });
    const names = (found.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name);
    expect(names.filter((n) => n.includes(session))).toEqual([entity]);
  });
});

describe("hooks never get in the way", () => {
  /** The three hooks, each with input that would reach the server. */
  const inputs = () =>
    [
      [{ hook_event_name: "SessionStart", source: "startup" }, "startup"],
      [{ hook_event_name: "UserPromptSubmit", prompt: "How do we deploy to production?" }, undefined],
      [{ hook_event_name: "SessionEnd", session_id: "down", transcript_path: join(dir, "down.jsonl"), reason: "other" }, undefined],
    ] as const;

  beforeAll(async () => {
    await writeFile(join(dir, "down.jsonl"), userSays("how do we deploy?", "d1"));
  });

  /** Exit 0, nothing for the model, at most one line on stderr, within the bound, and no token in sight. */
  const quietFailure = (run: Run, secret?: string) => {
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
    expect(run.stderr).toMatch(/^engram \w+: /);
    expect(run.ms).toBeLessThan(HOOK_BOUND_MS);
    if (secret) expect(run.stderr + run.stdout).not.toContain(secret);
  };

  it("exits 0 with one line when the server is down", async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    for (const [input, match] of inputs()) quietFailure(await runHook(input, { url, token }, match), token);
  });

  it("exits 0 with one line, and prints no token, when the token is wrong", async () => {
    const wrong = `eg_${"w".repeat(43)}`;
    for (const [input, match] of inputs()) {
      const run = await runHook(input, { url: `${dev.url}/mcp/${CONTEXT}`, token: wrong }, match);
      quietFailure(run, wrong);
      expect(run.stderr).toContain("HTTP 401");
    }
  });

  describe("against a server that answers late or with an error", () => {
    let server: http.Server;
    let base: string;
    const seen: http.IncomingHttpHeaders[] = [];
    beforeAll(async () => {
      server = http.createServer((request, response) => {
        seen.push(request.headers);
        request.resume();
        const status = Number(request.url?.split("/")[1]);
        if (status) {
          response.writeHead(status, { "Content-Type": "application/json" });
          response.end('{"error":"nope"}');
        }
        // Otherwise: never answers (a slow server); the hook must give up on its own.
      });
      await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    });

    it("exits 0 with one line within 5 s when the server does not answer", async () => {
      const runs = await Promise.all(inputs().map(([input, match]) => runHook(input, { url: `${base}/slow/mcp`, token }, match)));
      for (const run of runs) {
        quietFailure(run, token);
        expect(run.stderr).toContain("did not answer in time");
      }
    });

    it("exits 0 with one line on 403 and 5xx", async () => {
      for (const status of [403, 500, 503]) {
        for (const [input, match] of inputs()) quietFailure(await runHook(input, { url: `${base}/${status}/mcp`, token }, match), token);
      }
    });

    it("sends no Authorization header when ENGRAM_TOKEN is unset or empty, and the token when set", async () => {
      seen.length = 0;
      await runHook({ hook_event_name: "UserPromptSubmit", prompt: "how do we deploy?" }, { url: `${base}/500/mcp` });
      await runHook({ hook_event_name: "UserPromptSubmit", prompt: "how do we deploy?" }, { url: `${base}/500/mcp`, token: "  " });
      expect(seen).toHaveLength(2);
      for (const headers of seen) expect(headers.authorization).toBeUndefined();
      await runHook({ hook_event_name: "UserPromptSubmit", prompt: "how do we deploy?" }, { url: `${base}/500/mcp`, token });
      expect(seen[2]?.authorization).toBe(`Bearer ${token}`);
    });
  });
});
