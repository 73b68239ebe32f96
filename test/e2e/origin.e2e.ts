/**
 * A cross-origin attack in a real browser: a page served from another
 * loopback origin (http://127.0.0.2:<port>) tries to read a context through
 * /mcp and the export, and to purge it with no-cors requests and a form,
 * against `wrangler dev` in open local mode. Chromium does what an
 * attacker's page could do; the server's own page, as the control, reads
 * the same context.
 */
import { createServer, type Server } from "node:http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngramClient } from "../../src/ui/client/mcp";
import { launchChromium, requireChromium, startDev, type Browser, type Dev } from "./harness";

const CTX = "e2e-origin";
const SECRET = "the launch code is 0000";

let dev: Dev;
let browser: Browser;
let stranger: Server;
let strangerUrl: string;

/** The purge an attacker's page aims at. */
const purgeUrl = () => `${dev.url}/api/contexts/${CTX}/purge?confirm=${CTX}`;

/**
 * Pages on 127.0.0.2 (another loopback origin: the machine's own, not the
 * server's): `/` is blank, `/form` the classic cross-site form posting
 * text/plain to the purge route.
 */
function startStranger(): Promise<Server> {
  const server = createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    if (req.url === "/form") {
      res.end(
        `<!doctype html><title>win a prize</title><form method="post" enctype="text/plain" action="${purgeUrl()}"><input name="x" value="y"><button>Claim</button></form>`,
      );
      return;
    }
    res.end("<!doctype html><title>another local app</title><p>nothing to see</p>");
  });
  return new Promise((done, failed) => {
    server.once("error", failed);
    server.listen(0, "127.0.0.2", () => done(server));
  });
}

async function exported(): Promise<string> {
  const res = await fetch(`${dev.url}/api/contexts/${CTX}/export`);
  expect(res.status).toBe(200);
  return res.text();
}

/** What the page can read of a tools/call read_graph on `path` (2025-era, stateless): the body, or the error fetch threw. */
function readThroughMcp(page: Page, server: string, path: string): Promise<string> {
  return page.evaluate(
    async ({ url, ctx }) => {
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read_graph", arguments: { context: ctx } } }),
        });
        return `${res.status} ${await res.text()}`;
      } catch (error) {
        return `blocked: ${String(error)}`;
      }
    },
    { url: `${server}${path}`, ctx: CTX },
  );
}

beforeAll(async () => {
  requireChromium();
  browser = await launchChromium();
  dev = await startDev();
  stranger = await startStranger();
  const address = stranger.address();
  strangerUrl = `http://127.0.0.2:${typeof address === "object" && address ? address.port : 0}`;
  await new EngramClient({ base: dev.url }).callTool(CTX, "create_entities", {
    entities: [{ name: "Vault", entityType: "secret", observations: [SECRET] }],
  });
  expect(await exported()).toContain(SECRET);
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
  await new Promise((done) => (stranger ? stranger.close(done) : done(undefined)));
});

describe("a page on another loopback origin against open local mode", () => {
  it("cannot read a context through /mcp, /mcp/<ctx> or the export", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${strangerUrl}/`);
    for (const path of ["/mcp", `/mcp/${CTX}`]) {
      const answer = await readThroughMcp(page, dev.url, path);
      expect(answer, path).toMatch(/^blocked: TypeError/);
      expect(answer).not.toContain(SECRET);
    }
    const exportAnswer = await page.evaluate(async (url) => {
      try {
        return await (await fetch(url)).text();
      } catch (error) {
        return `blocked: ${String(error)}`;
      }
    }, `${dev.url}/api/contexts/${CTX}/export`);
    expect(exportAnswer).toMatch(/^blocked: TypeError/);
    await page.close();
  });

  it("cannot purge it with a no-cors fetch or a form, and the server refuses each with 403", async () => {
    const page = await browser.context.newPage();
    const statuses: number[] = [];
    page.on("response", (r) => {
      if (r.url().includes("/purge")) statuses.push(r.status());
    });
    await page.goto(`${strangerUrl}/`);
    const types = await page.evaluate(async (url) => {
      const seen: string[] = [];
      for (const body of ["x", undefined, new URLSearchParams({ a: "b" })]) {
        // Typed loosely: the Workers' RequestInit has no `mode`; Chromium's does.
        const init: Record<string, unknown> = { method: "POST", mode: "no-cors", ...(body !== undefined ? { body } : {}) };
        seen.push((await fetch(url, init)).type);
      }
      return seen;
    }, purgeUrl());
    // Opaque: the page learns nothing of the answer either.
    expect(types).toEqual(["opaque", "opaque", "opaque"]);
    await page.goto(`${strangerUrl}/form`);
    await page.getByRole("button", { name: "Claim" }).click();
    await page.waitForURL((u) => u.href.includes("/purge"), { timeout: 15_000 });
    expect(statuses).toEqual([403, 403, 403, 403]);
    expect(await exported()).toContain(SECRET);
    await page.close();
  });

  it("while the server's own page reads the same context (the control)", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${dev.url}/`);
    const answer = await readThroughMcp(page, dev.url, `/mcp/${CTX}`);
    expect(answer.startsWith("200 ")).toBe(true);
    expect(answer).toContain(SECRET);
    await page.close();
  });
});
