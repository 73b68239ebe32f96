/**
 * The web page end to end: a real `wrangler dev` (with ADMIN_TOKEN, so the
 * page must sign in) and headless Chromium. A teammate's API token signs
 * in, searches, opens a node, edits an observation, undoes the edit from
 * the history, and browses files and documents; a screenshot is saved
 * under test-results/ui/. The importance control is checked both ways:
 * shown to a writer (it calls mark_important, the mark shows after the
 * page reads the entity again, and undoing the change from the history
 * takes it back), hidden from a read grant and from a
 * connection whose tools/list does not offer mark_important.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import type { Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngramClient } from "../../src/ui/client/mcp";
import { launchChromium, requireChromium, startDev, type Browser, type Dev } from "./harness";

const OUT = resolve(import.meta.dirname, "../../test-results/ui");
const ADMIN = `admin-${crypto.randomUUID()}`;
const CTX = "e2e-team";
const WAIT = { timeout: 15_000 };

let dev: Dev;
let browser: Browser;
let writer: string;
let reader: string;

async function mint(name: string, role: "read" | "write"): Promise<string> {
  const r = await fetch(`${dev.url}/api/tokens`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name, grants: [{ context: CTX, role }] }),
  });
  expect(r.status).toBe(201);
  return ((await r.json()) as { token: string }).token;
}

async function seed(): Promise<void> {
  const admin = new EngramClient({ base: dev.url, token: () => ADMIN });
  await admin.callTool(CTX, "create_entities", {
    entities: [
      { name: "Alice", entityType: "person", observations: ["prefers Go", "owns the billing service"] },
      { name: "Billing service", entityType: "service", observations: ["charges customers monthly"] },
      { name: "Postgres", entityType: "database", observations: ["stores invoices for billing"] },
    ],
  });
  await admin.callTool(CTX, "create_relations", {
    relations: [
      { from: "Alice", to: "Billing service", relationType: "owns" },
      { from: "Billing service", to: "Postgres", relationType: "uses" },
    ],
  });
  await admin.callTool(CTX, "create", { path: "notes/billing.md", file_text: "# Billing\nRetries run nightly.\n" });
  await admin.callTool(CTX, "update_document", { id: "root", content: "# Team notes\n[[runbook]]\n" });
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(`${dev.url}/`);
  await page.getByLabel("API token").fill(token);
  await page.getByLabel("API token").press("Enter");
  await page.locator("#workspace").waitFor({ state: "visible", ...WAIT });
  expect(await page.locator("#context").inputValue()).toBe(CTX);
}

async function searchAndOpen(page: Page, query: string, name: string): Promise<void> {
  await page.getByLabel("Search memory").fill(query);
  await page.getByLabel("Search memory").press("Enter");
  await page.locator(`#graph .node[data-name="${name}"]`).waitFor(WAIT);
  // Keyboard: the results list is buttons; Enter opens one.
  await page.locator(`#results button[data-name="${name}"]`).focus();
  await page.keyboard.press("Enter");
  await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe(name);
}

/** Follows a relation from the open entity to `name`. */
async function openRelated(page: Page, name: string): Promise<void> {
  await page.locator("#detail .relations").getByRole("button", { name }).click();
  await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe(name);
}

const observations = (page: Page) => page.locator("#detail .observation:not(.superseded) .text").allTextContents();
const superseded = (page: Page) => page.locator("#detail .observation.superseded .text").allTextContents();

beforeAll(async () => {
  requireChromium();
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

it("fails, naming the install command, when Chromium is missing", () => {
  expect(() => requireChromium("/nonexistent/chromium")).toThrow("apt-get update && apt-get install -y chromium");
});

describe("web page in Chromium against wrangler dev with ADMIN_TOKEN", () => {
  beforeAll(async () => {
    dev = await startDev({ ADMIN_TOKEN: ADMIN });
    try {
      writer = await mint("alice-e2e", "write");
      reader = await mint("bob-e2e", "read");
      await seed();
    } catch (error) {
      await dev.stop();
      throw error;
    }
  });

  afterAll(async () => {
    await dev?.stop();
  });

  it("signs in with a token, searches, opens a node, edits an observation and undoes the edit from the history", async () => {
    const page = await browser.context.newPage();
    const foreign: string[] = [];
    const problems: string[] = [];
    page.on("request", (r: Request) => {
      if (new URL(r.url()).hostname !== "127.0.0.1") foreign.push(r.url());
    });
    page.on("pageerror", (e) => problems.push(String(e)));
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    const shipped = new Map<string, { bytes: number; gzip: number }>();
    // What the first, uncached load transfers (later loads revalidate and get 304s without bodies).
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} for ${r.request().method()} ${r.url()}`);
      if (r.status() !== 200 || !["document", "script", "stylesheet"].includes(r.request().resourceType())) return;
      const path = new URL(r.url()).pathname;
      if (!shipped.has(path)) shipped.set(path, { bytes: 0, gzip: 0 });
      r.body().then(
        (b) => shipped.set(path, { bytes: b.length, gzip: gzipSync(b, { level: 9 }).length }),
        (e: unknown) => problems.push(`no body for ${path}: ${String(e)}`),
      );
    });

    await page.goto(`${dev.url}/`);
    expect(await page.locator("#signin").isVisible()).toBe(true);
    // Signed out, the page says where a token comes from and that a local server needs none.
    expect(await page.locator("#signin-help").isVisible()).toBe(true);
    const help = await page.locator("#signin-help").textContent();
    expect(help).toContain("npm run admin -- token create <your-name> --grant '<context>=write'");
    expect(help).toContain("open local mode");
    await signIn(page, writer);
    expect(await page.locator("#signin-help").isVisible()).toBe(false);
    await expect.poll(() => page.locator('#counts [data-count="entities"]').textContent(), WAIT).toBe("3");

    // "billing" finds the service with any search engine (substring or ranked); Alice is one relation away.
    await searchAndOpen(page, "billing", "Billing service");
    expect(await observations(page)).toEqual(["charges customers monthly"]);
    // Found by the search and then opened: the access statistics count each once, said apart.
    const stat = (term: string) => page.locator("#detail .stats dt", { hasText: term }).locator("xpath=following-sibling::dd[1]").textContent();
    await expect.poll(() => stat("Found in search"), WAIT).toBe("1 time");
    expect(await stat("Opened")).toBe("1 time");
    await openRelated(page, "Alice");
    expect(await observations(page)).toEqual(["prefers Go", "owns the billing service"]);
    // Alice was opened once (just now); the search found her too, since her observation says "billing service"
    // (search_nodes returns every entity that matches well), and the panel counts the two apart.
    await expect.poll(() => stat("Opened"), WAIT).toBe("1 time");
    expect(await stat("Found in search")).toBe("1 time");
    // The server lists mark_important: a writer sees the control, unpressed.
    expect(await page.locator("#important").getAttribute("aria-pressed")).toBe("false");

    await page.getByRole("button", { name: "Edit observation: prefers Go" }).click();
    await page.getByLabel("Edit observation (Enter saves, Escape cancels)").fill("prefers Go and Rust");
    await page.keyboard.press("Enter");
    await expect.poll(() => observations(page), WAIT).toEqual(["owns the billing service", "prefers Go and Rust"]);
    await page.locator("#notice-undo").waitFor({ state: "visible", ...WAIT });
    // Under each current observation, who wrote it and when: the seed's admin token, then this teammate's token.
    const writers = () => page.locator("#detail .observation:not(.superseded) .by").allTextContents();
    await expect.poll(writers, WAIT).toEqual([expect.stringMatching(/^by admin · \d{4}-/), expect.stringMatching(/^by alice-e2e · \d{4}-/)]);
    // The edit is update_observation: the old text stays, greyed, with when it held.
    expect(await superseded(page)).toEqual(["prefers Go"]);
    expect(await page.locator("#detail .observation.superseded .held").textContent()).toMatch(/^held \d{4}-.+ – \d{4}-/);
    // The "as of" picker: before the seed Alice did not exist; "Now" comes back.
    await page.getByLabel("As of").fill("2020-01-01T00:00");
    await expect.poll(() => page.locator("#detail-body").textContent(), WAIT).toContain("“Alice” did not exist at that time.");
    await page.locator("#asof-now").click();
    await expect.poll(() => observations(page), WAIT).toEqual(["owns the billing service", "prefers Go and Rust"]);

    await page.getByRole("tab", { name: "History" }).click();
    const undoAdd = page
      .locator("#history li", { hasText: "update_observation" })
      .first()
      .getByRole("button", { name: /Undo change/ });
    await undoAdd.waitFor(WAIT);
    expect(await page.locator("#history li").first().textContent()).toContain("alice-e2e");
    await undoAdd.click();
    await expect.poll(() => observations(page), WAIT).toEqual(["prefers Go", "owns the billing service"]);
    expect(await superseded(page)).toEqual([]);
    await expect.poll(() => page.locator("#history li").first().textContent(), WAIT).toContain("undo");
    // Filtered by tool (its exact name): only the edit, not the seed's writes or the undo.
    await page.getByLabel("Tool").fill("update_observation");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.locator("#history li .tool").allTextContents(), WAIT).toEqual(["update_observation"]);
    expect(await page.locator("#history li .caller").allTextContents()).toEqual(["alice-e2e"]);

    await page.getByRole("tab", { name: "Files" }).click();
    await page.getByRole("button", { name: "billing.md" }).click();
    await expect.poll(() => page.locator("#detail pre").textContent(), WAIT).toContain("Retries run nightly.");
    await page.getByRole("tab", { name: "Documents" }).click();
    // The tree's button: billing.md's related items may list "doc: root" too (the seed wrote both in one session).
    await page.locator('button[data-doc="root"]').click();
    await expect.poll(() => page.locator("#detail pre").textContent(), WAIT).toContain("[[runbook]]");
    await page.locator("#detail-body").getByRole("button", { name: "runbook" }).click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe("runbook");

    // Escape closes the panel. Two words, two entry nodes, and the service connecting them on a highlighted path.
    await page.keyboard.press("Escape");
    expect(await page.locator("#detail").isHidden()).toBe(true);
    await page.getByRole("tab", { name: "Search" }).click();
    await page.getByLabel("Search memory").fill("alice postgres");
    await page.getByLabel("Search memory").press("Enter");
    await page.locator('#graph .node.connector[data-name="Billing service"]').waitFor(WAIT);
    expect(await page.locator("#graph .node.entry").evaluateAll((nodes) => nodes.map((n) => n.getAttribute("data-name")).sort())).toEqual(["Alice", "Postgres"]);
    expect(await page.locator("#graph .edge.path").count()).toBe(2);
    expect(await page.locator("#legend").isVisible()).toBe(true);
    await page.locator('#graph .node[data-name="Alice"]').click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe("Alice");
    await mkdir(OUT, { recursive: true });
    await page.screenshot({ path: `${OUT}/engram-ui.png`, fullPage: true });

    const total = [...shipped.values()].reduce((a, b) => ({ bytes: a.bytes + b.bytes, gzip: a.gzip + b.gzip }), { bytes: 0, gzip: 0 });
    const report = JSON.stringify({ ...Object.fromEntries(shipped), total });
    await writeFile(`${OUT}/bytes.json`, `${report}\n`);
    expect([...shipped.keys()].sort()).toEqual(["/", "/ui/app.css", "/ui/app.js"]);
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a read grant the memory without any control that writes", async () => {
    const page = await browser.context.newPage();
    await signIn(page, reader);
    await searchAndOpen(page, "billing", "Billing service");
    await openRelated(page, "Alice");
    expect(await observations(page)).toEqual(["prefers Go", "owns the billing service"]);
    expect(await page.getByRole("button", { name: /^Edit observation/ }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Delete observation/ }).count()).toBe(0);
    expect(await page.getByLabel("New observation").count()).toBe(0);
    expect(await page.locator("#important").count()).toBe(0);
    // No administration for a teammate.
    expect(await page.getByRole("tab", { name: "Administration" }).count()).toBe(0);
    await page.close();
  });

  it("lets the administrator mint a token in the Administration tab (the secret shown once), list and revoke it", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${dev.url}/`);
    await page.getByLabel("API token").fill(ADMIN);
    await page.getByLabel("API token").press("Enter");
    await page.locator("#workspace").waitFor({ state: "visible", ...WAIT });
    await page.getByRole("tab", { name: "Administration" }).click();
    await page.getByLabel("Token name").fill("carol");
    expect(await page.locator("#admin-token-mode").isVisible()).toBe(false);
    await page.getByLabel("Grants").fill(`${CTX}=read, default=write`);
    await page.getByRole("button", { name: "Mint token" }).click();
    const secret = await page.locator("#admin-secret-value").textContent();
    expect(secret?.length).toBeGreaterThan(20);
    const row = page.locator("#admin-tokens li", { hasText: "carol" });
    await row.waitFor(WAIT);
    expect(await row.textContent()).toContain(`${CTX}=read, default=write`);
    await page.getByRole("button", { name: "Revoke token carol" }).click();
    await expect.poll(() => row.count(), WAIT).toBe(0);
    await page.close();
  });

  it("signs out when the server refuses the token", async () => {
    const page = await browser.context.newPage();
    await page.goto(`${dev.url}/`);
    await page.getByLabel("API token").fill("not-a-token");
    await page.getByLabel("API token").press("Enter");
    await expect.poll(() => page.locator("#alert").textContent(), WAIT).toContain("not valid");
    expect(await page.locator("#signin").isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem("engram.token"))).toBeNull();
    await page.close();
  });

  it("marks an entity important with mark_important, shows the mark, undoes it from the history, and hides the control when the tool is not listed", async () => {
    const page = await browser.context.newPage();
    const calls: unknown[] = [];
    await page.route(`${dev.url}/mcp/${CTX}`, async (route) => {
      const body = route.request().postDataJSON() as { params?: { name?: string; arguments?: unknown } };
      if (route.request().headers()["mcp-method"] === "tools/call" && body.params?.name === "mark_important") calls.push(body.params.arguments);
      return route.continue();
    });
    await signIn(page, writer);
    await searchAndOpen(page, "billing", "Billing service");
    await openRelated(page, "Alice");
    const toggle = page.locator("#important");
    expect(await toggle.getAttribute("aria-pressed")).toBe("false");
    await toggle.click();
    await expect.poll(() => calls, WAIT).toEqual([{ items: ["entity:Alice"], important: true }]);
    // The page reads the entity again: the mark comes from its statistics, with the promotion it brought.
    await expect.poll(() => page.locator("#important").getAttribute("aria-pressed"), WAIT).toBe("true");
    await expect.poll(() => page.locator("#detail .stats").textContent(), WAIT).toContain("long term");
    // Undo the mark from the history, the same undo an agent's change gets: the entity is unmarked again.
    await page.getByRole("tab", { name: "History" }).click();
    const undoMark = page
      .locator("#history li", { hasText: "mark_important" })
      .first()
      .getByRole("button", { name: /Undo change/ });
    await undoMark.waitFor(WAIT);
    await undoMark.click();
    await expect.poll(() => page.locator("#history li").first().textContent(), WAIT).toContain("undo");
    // The open panel reads the entity again after the undo (as after an edit's undo): unmarked.
    expect(await page.locator("#detail-h").textContent()).toBe("Alice");
    await expect.poll(() => page.locator("#important").getAttribute("aria-pressed"), WAIT).toBe("false");
    // Toggling works both ways without the history too.
    await page.locator("#important").click();
    await expect.poll(() => page.locator("#important").getAttribute("aria-pressed"), WAIT).toBe("true");
    await page.locator("#important").click();
    await expect.poll(() => page.locator("#important").getAttribute("aria-pressed"), WAIT).toBe("false");
    await page.close();

    // A connection whose tools/list leaves mark_important out gets no control.
    const hidden = await browser.context.newPage();
    await hidden.route(`${dev.url}/mcp/${CTX}`, async (route) => {
      if (route.request().headers()["mcp-method"] !== "tools/list") return route.continue();
      const response = await route.fetch();
      const json = (await response.json()) as { result: { tools: { name: string }[] } };
      json.result.tools = json.result.tools.filter((t) => t.name !== "mark_important");
      return route.fulfill({ response, json });
    });
    await signIn(hidden, writer);
    await searchAndOpen(hidden, "billing", "Billing service");
    await openRelated(hidden, "Alice");
    expect(await hidden.locator("#detail .stats").textContent()).toContain("Opened");
    expect(await hidden.locator("#important").count()).toBe(0);
    await hidden.close();
  });
});

describe("web page in open local mode (no ADMIN_TOKEN, loopback)", () => {
  let local: Dev;
  beforeAll(async () => {
    local = await startDev();
  });
  afterAll(async () => {
    await local?.stop();
  });

  it("needs no token, and the notice's Undo takes back the change just made", async () => {
    const c = new EngramClient({ base: local.url });
    await c.callTool("default", "create_entities", { entities: [{ name: "Kettle", entityType: "thing", observations: ["boils water"] }] });
    const page = await browser.context.newPage();
    await page.goto(`${local.url}/`);
    await page.locator("#workspace").waitFor({ state: "visible", ...WAIT });
    expect(await page.locator("#signin").isVisible()).toBe(false);
    expect(await page.locator("#signin-help").isVisible()).toBe(false);
    expect(await page.locator("#who").textContent()).toContain("Open local mode (no ADMIN_TOKEN)");
    expect(await page.locator("#context").inputValue()).toBe("default");
    // "/" jumps to the search box.
    await page.locator("body").press("/");
    expect(await page.locator("#q:focus").count()).toBe(1);
    await page.keyboard.type("kettle");
    await page.keyboard.press("Enter");
    await page.locator('#graph .node[data-name="Kettle"]').focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe("Kettle");
    await page.getByLabel("New observation").fill("descales monthly");
    await page.getByLabel("New observation").press("Enter");
    await expect.poll(() => observations(page), WAIT).toEqual(["boils water", "descales monthly"]);
    await page.locator("#notice-undo").click();
    await expect.poll(() => observations(page), WAIT).toEqual(["boils water"]);
    expect(await page.locator("#notice-text").textContent()).toContain("Undid");
    await page.close();
  });

  it("suggests duplicates, merges a pair with one click, and the notice's Undo brings both back", async () => {
    const c = new EngramClient({ base: local.url });
    await c.callTool("default", "create_entities", {
      entities: [
        { name: "Acme Corp", entityType: "company", observations: ["makes anvils"] },
        { name: "ACME Corporation", entityType: "company", observations: ["based in Phoenix"] },
      ],
    });
    const page = await browser.context.newPage();
    await page.goto(`${local.url}/`);
    await page.locator("#workspace").waitFor({ state: "visible", ...WAIT });
    await page.locator("#tab-dups").click();
    const pairs = page.locator("#dups li");
    await expect.poll(() => pairs.count(), WAIT).toBe(1);
    expect(await pairs.first().textContent()).toContain("same name when normalised");
    await page.getByRole("button", { name: 'Merge "ACME Corporation" into "Acme Corp"' }).click();
    await expect.poll(() => page.locator("#notice-text").textContent(), WAIT).toBe('Merged "ACME Corporation" into "Acme Corp".');
    await expect.poll(() => page.locator("#dups-note").textContent(), WAIT).toBe("No likely duplicates.");
    const names = async () => ((await c.call<{ entities: { name: string }[] }>("default", "read_graph")).entities ?? []).map((e) => e.name);
    expect(await names()).not.toContain("ACME Corporation");
    await page.locator("#notice-undo").click();
    await expect.poll(() => pairs.count(), WAIT).toBe(1);
    expect(await names()).toEqual(expect.arrayContaining(["Acme Corp", "ACME Corporation"]));
    await page.close();
  });
});
