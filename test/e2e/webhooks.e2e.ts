/**
 * Webhooks as a deployment runs them: `npm start` with an administrator,
 * three teammates writing through the MCP SDK, and a receiver on loopback
 * (a Node http server) that answers 503 twice before it accepts. Set up
 * with `npm run admin -- webhook add|list|remove`.
 */
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDev, type Dev } from "./harness";

const ROOT = resolve(import.meta.dirname, "../..");
const ADMIN = "e2e-webhooks-admin-secret-0123456789";
const SECRET = "e2e-webhook-secret-0123456789";
const CONTEXT = "team-hooks";

/** `npm run admin -- ...args` as the administrator, or as `token`. */
function admin(args: string[], token = ADMIN): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(ROOT, "scripts", "admin.mjs"), "--url", dev.url, "--token", token, ...args],
      { cwd: ROOT, env: { ...process.env, ENGRAM_URL: "", ENGRAM_TOKEN: "", ADMIN_TOKEN: "", ENGRAM_WEBHOOK_SECRET: "" } },
      (error, stdout, stderr) => done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

interface Hit {
  status: number;
  body: string;
  signature: string | undefined;
}

let dev: Dev;
let server: Server;
let receiverUrl: string;
const hits: Hit[] = [];
/** Answers in turn; 200 once these run out. */
const statuses = [503, 503];
let notify = () => {};

/** Resolves once the receiver has accepted `n` deliveries (the test's own timeout bounds the wait). */
const accepted = (n: number) =>
  new Promise<void>((done) => {
    const check = () => {
      if (hits.filter((h) => h.status === 200).length >= n) done();
      else notify = check;
    };
    check();
  });

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const status = statuses.shift() ?? 200;
      hits.push({ status, body, signature: req.headers["x-engram-signature"] as string | undefined });
      res.writeHead(status).end();
      notify();
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  dev = await startDev({ ADMIN_TOKEN: ADMIN });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await new Promise((done) => server?.close(done));
});

describe("webhooks to a local receiver", () => {
  it("delivers three teammates' changes in seq order, signed, after two 503s, and lists and removes the webhook", async () => {
    expect((await admin(["context", "create", CONTEXT])).code).toBe(0);
    const tokens: { name: string; token: string }[] = [];
    for (const name of ["alice", "bob", "carol"]) {
      const minted = await admin(["token", "create", name, "--grant", `${CONTEXT}=write`]);
      tokens.push(JSON.parse(minted.stdout) as { name: string; token: string });
    }
    const short = await admin(["webhook", "add", CONTEXT, receiverUrl, "--secret", "short"]);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("secret must be at least 16 characters");
    const notMine = await admin(["webhook", "add", CONTEXT, receiverUrl, "--secret", SECRET], tokens[0]?.token);
    expect(notMine.stderr).toMatch(/^HTTP 403: /);
    const added = await admin(["webhook", "add", CONTEXT, receiverUrl, "--secret", SECRET]);
    expect(added.code).toBe(0);
    const { id } = JSON.parse(added.stdout) as { id: string };

    for (const [i, t] of tokens.entries()) {
      const client = new Client({ name: `teammate-${i}`, version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp/${CONTEXT}`), { requestInit: { headers: { Authorization: `Bearer ${t.token}` } } }),
      );
      const r = await client.callTool({ name: "create_entities", arguments: { entities: [{ name: `Item ${i}`, entityType: "t", observations: [] }] } });
      expect(r.isError).toBeFalsy();
      await client.close();
    }
    await accepted(3);

    const delivered = hits.filter((h) => h.status === 200).map((h) => JSON.parse(h.body) as { context: string; seq: number; by: string; tool: string });
    expect(delivered.map((d) => [d.seq, d.by, d.context, d.tool])).toEqual(tokens.map((t, i) => [i + 1, t.name, CONTEXT, "create_entities"]));
    expect(hits.slice(0, 3).map((h) => [h.status, JSON.parse(h.body).seq])).toEqual([
      [503, 1],
      [503, 1],
      [200, 1],
    ]);
    for (const h of hits) expect(h.signature).toBe(`sha256=${createHmac("sha256", SECRET).update(h.body).digest("hex")}`);

    const listed = JSON.parse((await admin(["webhook", "list", CONTEXT])).stdout) as { webhooks: Record<string, unknown>[] };
    expect(listed.webhooks).toEqual([
      expect.objectContaining({ id, url: receiverUrl, deliveredSeq: 3, pending: 0, lastStatus: "200", failures: 2, failing: false }),
    ]);
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    expect((await admin(["webhook", "remove", CONTEXT, id])).code).toBe(0);
    expect(JSON.parse((await admin(["webhook", "list", CONTEXT])).stdout)).toEqual({ webhooks: [] });
  }, 60_000);
});
