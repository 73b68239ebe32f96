/**
 * The web page as a curation tool, end to end in Chromium against a real
 * `wrangler dev` in open local mode: superseded facts read as text, the
 * whole-context graph at 50+ nodes with its labels apart (measured from the
 * rendered label boxes), zoom, pan and neighbourhoods, and the Entities tab
 * paging, sorting and filtering through the server. Every view is checked
 * with axe-core (no serious or critical violations) at 1,400 and 800 px,
 * and screenshots go to test-results/ui/.
 */
import { mkdir, readFile } from "node:fs/promises";
import { resolve } from "node:path";
import axe from "axe-core";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EngramClient } from "../../src/ui/client/mcp";
import { freePort, launchChromium, requireChromium, startDev, type Browser, type Dev } from "./harness";

const OUT = resolve(import.meta.dirname, "../../test-results/ui");
const WAIT = { timeout: 15_000 };

let dev: Dev;
let browser: Browser;
let client: EngramClient;

const WORDS = ["billing", "service", "Alice", "Postgres", "auth", "gateway", "queue", "worker", "cache", "ledger"];
/** 60 entities, two types, each related to an earlier one and some to a second: a graph past the picture's first cap. */
const NAMES = Array.from({ length: 60 }, (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 3 + 1) % WORDS.length]} ${String(i).padStart(2, "0")}`);

async function seed(ctx: string): Promise<void> {
  await client.callTool(ctx, "create_entities", {
    entities: NAMES.map((name, i) => ({ name, entityType: i % 4 === 0 ? "person" : "component", observations: [`fact ${i}`] })),
  });
  const relations = NAMES.slice(1).map((name, i) => ({ from: NAMES[Math.floor(i / 2)] ?? "", to: name, relationType: "uses" }));
  for (let i = 5; i < NAMES.length; i += 3) relations.push({ from: NAMES[i] ?? "", to: NAMES[(i * 7) % NAMES.length] ?? "", relationType: "knows" });
  await client.callTool(ctx, "create_relations", { relations: relations.filter((r) => r.from !== r.to) });
}

async function open(page: Page): Promise<void> {
  await page.goto(`${dev.url}/`);
  await page.locator("#workspace").waitFor({ state: "visible", ...WAIT });
}

/** axe-core's serious and critical violations on the page as it is now, as "rule: target" lines. */
async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
  await page.evaluate(axe.source);
  const found = (await page.evaluate(`axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)`)) as {
    id: string;
    impact: string;
    nodes: { target: string[] }[];
  }[];
  return found.filter((v) => v.impact === "serious" || v.impact === "critical").flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(" ")}`));
}

/** How many of the rendered node labels overlap another label's box. */
const overlappingLabels = (page: Page) =>
  page.locator("#context-graph .node .label").evaluateAll((labels) => {
    const boxes = labels.map((l) => l.getBoundingClientRect());
    return boxes.filter((b, i) => boxes.some((o, j) => j !== i && o.left < b.right && b.left < o.right && o.top < b.bottom && b.top < o.bottom)).length;
  });

beforeAll(async () => {
  requireChromium();
  browser = await launchChromium();
  dev = await startDev();
  client = new EngramClient({ base: dev.url });
  await seed("default");
  await mkdir(OUT, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
});

describe("web page as a curation tool (open local mode)", () => {
  it("shows superseded observations as text, one per line, with when each held", async () => {
    await client.callTool("default", "update_observation", { entityName: NAMES[0], old: "fact 0", new: "fact 0, revised" });
    await client.callTool("default", "update_observation", {
      entityName: NAMES[0],
      old: "fact 0, revised",
      new: "fact 0, revised twice and now rather longer than before",
    });
    const page = await browser.context.newPage();
    await open(page);
    await page.getByRole("tab", { name: "Entities" }).click();
    await page.locator("#entities-list").getByRole("button", { name: NAMES[0] }).click();
    const rows = page.locator("#detail .observation.superseded");
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    expect(await rows.locator(".text").allTextContents()).toEqual(["fact 0", "fact 0, revised"]);
    for (const row of await rows.all()) {
      const text = await row.locator(".text").boundingBox();
      const chars = (await row.locator(".text").textContent())?.length ?? 0;
      // A line of text, not a column of letters: as wide as its characters and one line high.
      expect(text?.width).toBeGreaterThan(5 * chars);
      expect(text?.height).toBeLessThan(30);
      expect(await row.locator(".held").textContent()).toMatch(/^held \d{4}-.+ – \d{4}-/);
    }
    await page.screenshot({ path: `${OUT}/superseded.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("draws the whole context, most connected first up to a cap, with at most 10% of 50 labels overlapping; zooms, pans, shows more and expands a neighbourhood", async () => {
    const page = await browser.context.newPage();
    await open(page);
    await page.getByRole("tab", { name: "Graph" }).click();
    const nodes = page.locator("#context-graph .node");
    await expect.poll(() => nodes.count(), WAIT).toBe(50);
    expect(await page.locator("#graph-note").textContent()).toBe("Showing 50 of 60 entities, the most important and most connected first.");
    const overlapping = await overlappingLabels(page);
    expect(overlapping).toBeLessThanOrEqual(5);
    // Labels are text in the picture, readable by tests and screen readers.
    expect(await page.locator("#context-graph .node .label").first().textContent()).not.toBe("");
    await page.screenshot({ path: `${OUT}/graph-50.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    const viewBox = () => page.locator("#context-graph svg").getAttribute("viewBox");
    const fitted = await viewBox();
    await page.getByRole("button", { name: "Zoom in" }).click();
    const zoomed = await viewBox();
    expect(zoomed).not.toBe(fitted);
    const width = (v: string | null) => Number(v?.split(" ")[2]);
    expect(width(zoomed)).toBeLessThan(width(fitted));
    // Dragging the background pans: the view moves, its size stays.
    const frame = await page.locator("#context-graph svg").boundingBox();
    if (!frame) throw new Error("no graph frame");
    await page.mouse.move(frame.x + 5, frame.y + 5);
    await page.mouse.down();
    await page.mouse.move(frame.x + 105, frame.y + 45, { steps: 4 });
    await page.mouse.up();
    const panned = await viewBox();
    expect(panned).not.toBe(zoomed);
    expect(width(panned)).toBeCloseTo(width(zoomed));
    await page.getByRole("button", { name: "Zoom out" }).click();
    expect(width(await viewBox())).toBeGreaterThan(width(panned));
    await page.getByRole("button", { name: "Fit" }).click();
    expect(await viewBox()).toBe(fitted);

    // Clicking a node opens it and brings in its neighbours that the cap left out.
    const shown = new Set(await nodes.evaluateAll((els) => els.map((e) => e.getAttribute("data-name") ?? "")));
    const outside = NAMES.find((n) => !shown.has(n)) ?? "";
    const index = NAMES.indexOf(outside);
    const parent = NAMES[Math.floor((index - 1) / 2)] ?? "";
    expect(shown.has(parent)).toBe(true);
    await page.locator(`#context-graph .node[data-name="${parent}"]`).click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe(parent);
    await page.locator(`#context-graph .node[data-name="${outside}"]`).waitFor(WAIT);

    await page.getByRole("button", { name: "Show more" }).click();
    await expect.poll(() => nodes.count(), WAIT).toBe(60);
    expect(await page.locator("#graph-note").textContent()).toBe("All 60 entities.");
    expect(await page.getByRole("button", { name: "Show more" }).count()).toBe(0);
    await page.close();
  });

  it("lists every entity without a search, a page at a time, sorted and filtered through the server, at 1,400 and 800 px", async () => {
    const page = await browser.context.newPage();
    const asked: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/entities?")) asked.push(new URL(r.url()).search);
    });
    await open(page);
    await page.getByRole("tab", { name: "Entities" }).click();
    const names = () => page.locator("#entities-list button").allTextContents();
    await expect.poll(names, WAIT).toEqual([...NAMES].sort().slice(0, 50));
    expect(await page.getByRole("button", { name: "Previous" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Next" }).click();
    await expect.poll(names, WAIT).toEqual([...NAMES].sort().slice(50));
    expect(await page.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Previous" }).click();
    await expect.poll(names, WAIT).toEqual([...NAMES].sort().slice(0, 50));
    // Every page came from the server, 50 at a time, by cursor.
    expect(asked.every((q) => q.includes("limit=50"))).toBe(true);
    expect(asked.filter((q) => q.includes("cursor=")).length).toBe(2);

    await page.getByLabel("Filter by type").selectOption("person");
    await expect.poll(names, WAIT).toEqual(NAMES.filter((_, i) => i % 4 === 0).sort());
    await page.getByLabel("Sort by").selectOption("updated");
    await client.callTool("default", "add_observations", { observations: [{ entityName: NAMES[8], contents: ["touched"] }] });
    await page.getByLabel("Sort by").selectOption("name");
    await page.getByLabel("Sort by").selectOption("updated");
    await expect.poll(async () => (await names())[0], WAIT).toBe(NAMES[8]);
    await page.screenshot({ path: `${OUT}/entities-1400.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);

    await page.setViewportSize({ width: 800, height: 900 });
    // Narrow, nothing spills sideways.
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(800);
    await page.screenshot({ path: `${OUT}/entities-800.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("creates, relates, renames and deletes entities through the MCP tools, each change in history and undoable", async () => {
    const page = await browser.context.newPage();
    await open(page);
    await page.getByRole("tab", { name: "Entities" }).click();
    await page.getByRole("button", { name: "New entity" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Zeta team");
    await page.getByLabel("Type", { exact: true }).fill("team");
    await page.getByLabel("Observations").fill("owns billing\nmeets weekly\n");
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Create" }).click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe("Zeta team");
    expect(await page.locator("#detail .observation:not(.superseded) .text").allTextContents()).toEqual(["owns billing", "meets weekly"]);

    const target = NAMES[1] ?? "";
    await page.getByRole("button", { name: "Add relation" }).click();
    await page.getByLabel("Relation type").fill("owns");
    // "To" suggests existing names.
    const listId = await page.getByLabel("To", { exact: true }).getAttribute("list");
    await expect.poll(() => page.locator(`datalist[id="${listId}"] option`).count(), WAIT).toBeGreaterThan(0);
    const suggested = await page.locator(`datalist[id="${listId}"] option`).evaluateAll((options) => options.map((o) => o.getAttribute("value")));
    expect(suggested).toContain(target);
    await page.getByLabel("To", { exact: true }).fill(target);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Add", exact: true }).click();
    await page.locator("#detail .relations").getByRole("button", { name: target, exact: true }).waitFor(WAIT);

    await page.getByRole("button", { name: "Rename" }).click();
    await page.getByLabel("New name").fill("Omega team");
    await page.getByRole("button", { name: "Rename" }).click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe("Omega team");
    expect(await page.locator("#detail .observation:not(.superseded) .text").allTextContents()).toEqual(["owns billing", "meets weekly"]);
    await page.locator("#detail .relations").getByRole("button", { name: target, exact: true }).waitFor(WAIT);
    await page.screenshot({ path: `${OUT}/curate.png`, fullPage: true });
    const tools = async () => (await client.call<{ changes: { tool: string }[] }>("default", "memory_history", { limit: 4 })).changes.map((c) => c.tool);
    expect(await tools()).toEqual(["merge_entities", "create_entities", "create_relations", "create_entities"]);
    // The notice's Undo takes the whole rename back.
    await page.locator("#notice-undo").click();
    const names = async (n: string[]) => (await client.call<{ entities: { name: string }[] }>("default", "open_nodes", { names: n })).entities.map((e) => e.name);
    await expect.poll(() => names(["Zeta team", "Omega team"]), WAIT).toEqual(["Zeta team"]);

    await page.getByRole("tab", { name: "Entities" }).click();
    await page.getByLabel("Sort by").selectOption("updated");
    await page.locator("#entities-list").getByRole("button", { name: "Zeta team" }).click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe("Zeta team");
    await page.locator("#detail .relations li", { hasText: target }).getByRole("button", { name: "Delete this owns relation" }).click();
    await expect.poll(() => page.locator("#detail .relations").count(), WAIT).toBe(0);

    // Deleting asks first; Cancel keeps it.
    await page.getByRole("button", { name: "Delete entity" }).click();
    expect(await page.getByRole("group", { name: "Confirm deletion" }).textContent()).toContain("Delete “Zeta team”");
    await page.getByRole("group", { name: "Confirm deletion" }).getByRole("button", { name: "Cancel" }).click();
    expect(await names(["Zeta team"])).toEqual(["Zeta team"]);
    await page.getByRole("button", { name: "Delete entity" }).click();
    await page.getByRole("button", { name: "Confirm delete" }).click();
    await expect.poll(() => page.locator("#detail").isHidden(), WAIT).toBe(true);
    expect(await names(["Zeta team"])).toEqual([]);
    expect((await tools())[0]).toBe("delete_entities");
    await page.close();
  });

  it("shows changes made elsewhere within 5 s without a reload: the list, the open entity and the overview", async () => {
    const page = await browser.context.newPage();
    await open(page);
    await page.getByRole("tab", { name: "Entities" }).click();
    const first = NAMES[2] ?? "";
    await page.locator("#entities-list").getByRole("button", { name: first, exact: true }).click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe(first);
    const count = await page.locator('#counts [data-count="entities"]').textContent();
    const live = { timeout: 5_000, interval: 250 };
    // Another client (an agent) changes the context.
    await client.callTool("default", "create_entities", {
      entities: [{ name: "Live arrival", entityType: "event", observations: ["came in while the page was open"] }],
    });
    await client.callTool("default", "add_observations", { observations: [{ entityName: first, contents: ["added by an agent"] }] });
    await expect.poll(() => page.locator("#detail .observation:not(.superseded) .text").allTextContents(), live).toContain("added by an agent");
    await expect.poll(() => page.locator("#entities-list").getByRole("button", { name: "Live arrival" }).count(), live).toBe(1);
    expect(Number(await page.locator('#counts [data-count="entities"]').textContent())).toBe(Number(count) + 1);
    await page.close();
  });

  it("exports memory.jsonl and imports one, showing the counts and the rejected lines by number", async () => {
    const page = await browser.context.newPage();
    await open(page);
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Export" }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe("memory.jsonl");
    const path = await file.path();
    const lines = (await readFile(path, "utf8")).trim().split("\n");
    expect(lines.some((l) => l.includes(`"name":"${NAMES[3]}"`))).toBe(true);

    const upload = [
      JSON.stringify({ type: "entity", name: "Imported one", entityType: "thing", observations: ["from a file"] }),
      "not json at all",
      JSON.stringify({ type: "relation", from: "Imported one", to: NAMES[4], relationType: "mentions" }),
    ].join("\n");
    await page.getByLabel("Import", { exact: true }).setInputFiles({ name: "memory.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(upload) });
    // Chromium gives the file input the role button too, so the button is the <button> of that name.
    await page.getByRole("button", { name: "Import", exact: true }).and(page.locator("button")).click();
    const report = page.locator("#import-report");
    await expect.poll(() => report.textContent(), WAIT).toContain("Imported memory.jsonl.");
    const count = (term: string) => report.locator("dt", { hasText: term }).locator("xpath=following-sibling::dd[1]").textContent();
    expect(await count("Entities created")).toBe("1");
    expect(await count("Relations created")).toBe("1");
    expect(await report.locator(".rejected li").allTextContents()).toEqual([expect.stringMatching(/^Line 2: /)]);
    expect((await client.call<{ entities: { name: string }[] }>("default", "open_nodes", { names: ["Imported one"] })).entities).toHaveLength(1);
    await page.screenshot({ path: `${OUT}/import.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("edits files and documents; a link against the rules is refused with the server's message and nothing is saved", async () => {
    await client.callTool("default", "create", { path: "notes/plan.md", file_text: "# Plan\nship it\n" });
    await client.callTool("default", "update_document", { id: "root", content: "# Team\n[[runbook]]\n" });
    const page = await browser.context.newPage();
    await open(page);
    await page.getByRole("tab", { name: "Files" }).click();
    await page.getByRole("button", { name: "plan.md" }).click();
    await page.getByRole("button", { name: "Edit file" }).click();
    expect(await page.getByLabel("File content").inputValue()).toBe("# Plan\nship it\n");
    await page.getByLabel("File content").fill("# Plan\nship it on Friday\n");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("#detail pre").textContent(), WAIT).toContain("ship it on Friday");
    const file = await client.call<{ text: string }>("default", "view", { path: "notes/plan.md" });
    expect(file.text).toContain("ship it on Friday");

    await page.getByRole("tab", { name: "Documents" }).click();
    await page.locator('button[data-doc="runbook"]').click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe("runbook");
    await page.getByRole("button", { name: "Edit document" }).click();
    // A child may not link its parent: refused, the server says why, the editor keeps the text.
    await page.getByLabel("Document content").fill("# Runbook\nsee [[root]]\n");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("#alert").textContent(), WAIT).toContain("rejected, nothing was written");
    expect(await page.getByLabel("Document content").inputValue()).toBe("# Runbook\nsee [[root]]\n");
    expect((await client.call<{ content: string }>("default", "read_document", { id: "runbook" })).content).not.toContain("[[root]]");
    await page.screenshot({ path: `${OUT}/document-rejected.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    // Linking a new id creates the child document; removing the link deletes it.
    await page.getByLabel("Document content").fill("# Runbook\n[[oncall]]\n");
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("#detail-body").getByRole("button", { name: "oncall" }).waitFor(WAIT);
    const tree = async () => JSON.stringify(await client.call("default", "get_document_tree"));
    expect(await tree()).toContain("oncall");
    await page.getByRole("button", { name: "Edit document" }).click();
    await page.getByLabel("Document content").fill("# Runbook\n");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(tree, WAIT).not.toContain("oncall");

    await page.getByRole("tab", { name: "Files" }).click();
    await page.getByRole("button", { name: "plan.md" }).click();
    await page.getByRole("button", { name: "Delete file" }).click();
    await page.getByRole("button", { name: "Confirm delete" }).click();
    await expect.poll(() => page.locator("#detail").isHidden(), WAIT).toBe(true);
    expect(JSON.stringify(await client.call("default", "view", { path: "/" }))).not.toContain("plan.md");

    // "New file" writes with create (no overwrite): the file is listed and opened; the same path again is refused and changes nothing.
    await page.getByRole("button", { name: "New file" }).click();
    await page.getByLabel("Path", { exact: true }).fill("notes/new.md");
    await page.getByLabel("Content", { exact: true }).fill("# New\nfirst\n");
    await page.getByRole("button", { name: "Create file" }).click();
    await page.locator('#file-tree button[data-path="notes/new.md"]').waitFor(WAIT);
    await expect.poll(() => page.locator("#detail pre").textContent(), WAIT).toContain("first");
    expect((await client.call<{ text: string }>("default", "view", { path: "notes/new.md" })).text).toContain("first");
    await page.getByRole("button", { name: "New file" }).click();
    await page.getByLabel("Path", { exact: true }).fill("notes/new.md");
    await page.getByLabel("Content", { exact: true }).fill("# New\nsecond\n");
    await page.getByRole("button", { name: "Create file" }).click();
    await expect.poll(() => page.locator("#alert").textContent(), WAIT).toMatch(/exists/i);
    expect(await page.getByLabel("Content", { exact: true }).inputValue()).toBe("# New\nsecond\n");
    const kept = await client.call<{ text: string }>("default", "view", { path: "notes/new.md" });
    expect(kept.text).toContain("first");
    expect(kept.text).not.toContain("second");
    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("fits every tab into 800 px without horizontal scrolling, and every visible control is reachable with Tab", async () => {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width: 800, height: 900 });
    await open(page);
    const tabs = ["Search", "Entities", "Graph", "Files", "Documents", "History", "Duplicates", "Connected apps", "Administration"];
    for (const name of tabs) {
      await page.getByRole("tab", { name, exact: true }).click();
      await page.locator('[role="tabpanel"]:not([hidden])').waitFor(WAIT);
      await expect.poll(() => page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"), WAIT).toBeLessThanOrEqual(1);
      // Evaluated as a string: the test's TypeScript has no DOM types. A roving tabindex (the tab list) is one tab stop, its other members reached with the arrow keys.
      const offenders = await page.evaluate(`[...document.querySelectorAll("button, a[href], input, select, textarea")]
        .filter((el) => el.checkVisibility() && el.type !== "hidden" && el.getAttribute("role") !== "tab")
        .filter((el) => (el.disabled ? !el.title && !el.getAttribute("aria-describedby") : el.tabIndex < 0))
        .map((el) => el.tagName.toLowerCase() + "#" + (el.id || "?") + " " + (el.textContent || "").trim().slice(0, 30) + (el.disabled ? " disabled" : " tabindex=" + el.tabIndex))`);
      expect({ tab: name, offenders }).toEqual({ tab: name, offenders: [] });
      await page.screenshot({ path: `${OUT}/width-800-${name.toLowerCase().replace(/ /g, "-")}.png`, fullPage: true });
    }
    await page.close();
  });

  it("filters the history by caller and item, and shows markup in names as text everywhere", async () => {
    const payload = `<img src=x onerror="document.body.dataset.pwned=1">`;
    await client.callTool("default", "create_entities", {
      entities: [{ name: payload, entityType: "<b>type</b>", observations: ["<script>document.body.dataset.pwned=1</script>"] }],
    });
    const page = await browser.context.newPage();
    await open(page);
    await page.getByRole("tab", { name: "History" }).click();
    await page.getByLabel("Item").fill(`entity:${NAMES[0]}`);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect
      .poll(async () => (await page.locator("#history li .tool").allTextContents()).sort(), WAIT)
      .toEqual(["create_entities", "create_relations", "update_observation", "update_observation"]);
    await page.getByLabel("Item").fill("");
    await page.getByLabel("Caller").fill("nobody-by-that-name");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.locator("#history li").textContent(), WAIT).toBe("No change matches.");

    await page.getByRole("tab", { name: "Entities" }).click();
    await page.getByLabel("Sort by").selectOption("updated");
    await page.locator("#entities-list").getByRole("button", { name: payload, exact: true }).click();
    await expect.poll(() => page.locator("#detail-h").textContent(), WAIT).toBe(payload);
    await page.getByRole("tab", { name: "Graph" }).click();
    await page.getByRole("button", { name: "Show more" }).click();
    await page.locator("#context-graph .node .label", { hasText: "<img" }).first().waitFor(WAIT);
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("#detail b, #entities-list b").count()).toBe(0);
    expect(await page.evaluate("document.body.dataset.pwned ?? null")).toBeNull();
    await page.close();
  });

  it("lets the administrator create, flag and remove contexts, says why open local mode mints no token, and adds, lists and removes webhooks", async () => {
    const page = await browser.context.newPage();
    await open(page);
    await page.getByRole("tab", { name: "Administration" }).click();
    await page.getByLabel("Context name").fill("ops-team");
    await page.getByRole("button", { name: "Create context" }).click();
    const row = page.locator("#admin-contexts li", { hasText: "ops-team" });
    await row.waitFor(WAIT);
    await page.getByRole("button", { name: "Read-only: ops-team" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Read-only: ops-team" }).getAttribute("aria-pressed"), WAIT).toBe("true");
    // Open local mode accepts no token, so it mints none: the mint form gives way to why (minting: test/e2e/ui.e2e.ts).
    expect(await page.getByRole("button", { name: "Mint token" }).isVisible()).toBe(false);
    expect(await page.locator("#admin-token-mode").textContent()).toContain("tokens need an ADMIN_TOKEN");
    // A webhook of the picked context: listed with its delivery state, its secret nowhere on the page.
    const hook = `http://127.0.0.1:${await freePort()}/hook`;
    const hookSecret = "webhook-secret-0123456789";
    await page.getByLabel("Webhook URL").fill(hook);
    expect(await page.getByLabel("Webhook secret").getAttribute("type")).toBe("password");
    await page.getByLabel("Webhook secret").fill(hookSecret);
    await page.getByRole("button", { name: "Add webhook" }).click();
    const hookRow = page.locator("#admin-webhooks li", { hasText: hook });
    await hookRow.waitFor(WAIT);
    expect(await hookRow.textContent()).toMatch(/last status: .+, failures: \d+, (not failing|failing)/);
    expect(await page.getByLabel("Webhook secret").inputValue()).toBe("");
    expect(await page.content()).not.toContain(hookSecret);
    await page.screenshot({ path: `${OUT}/admin.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    // A short secret: the server's refusal is shown and nothing is added.
    const other = `http://127.0.0.1:${await freePort()}/other`;
    await page.getByLabel("Webhook URL").fill(other);
    await page.getByLabel("Webhook secret").fill("short");
    await page.getByRole("button", { name: "Add webhook" }).click();
    await expect.poll(() => page.locator("#alert").textContent(), WAIT).toContain("secret must be at least 16 characters");
    expect(await page.locator("#admin-webhooks li", { hasText: other }).count()).toBe(0);
    expect(await page.locator("#admin-webhooks li", { hasText: hook }).count()).toBe(1);
    await page.getByRole("button", { name: `Remove webhook ${hook}` }).click();
    await expect.poll(() => hookRow.count(), WAIT).toBe(0);
    await page.getByRole("button", { name: "Remove context ops-team" }).click();
    await expect.poll(() => row.count(), WAIT).toBe(0);
    await page.close();
  });
});
