import { describe, expect, it } from "vitest";
import { UI_ASSETS, UI_CSP } from "../../src/ui/routes";
import { workerFetch } from "../helpers/clients";

const open = workerFetch();
const secured = workerFetch({ ADMIN_TOKEN: "ui-admin-secret-0123456789" });

async function page(f = open, url = "http://127.0.0.1:8787/") {
  const res = await f(url);
  return { res, html: await res.text() };
}

/** The ids every `<label for>` names, and the ids of every form control. */
function labelsAndControls(html: string) {
  const labels = new Set([...html.matchAll(/<label[^>]*\bfor="([^"]+)"/g)].map((m) => m[1]));
  const controls = [...html.matchAll(/<(input|select|textarea)\b[^>]*\bid="([^"]+)"/g)].map((m) => m[2]);
  return { labels, controls };
}

describe("web page shell at /", () => {
  it("serves the page with the client's script and stylesheet from its own origin", async () => {
    const { res, html } = await page();
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain(`<script type="module" src="${UI_ASSETS.script}"></script>`);
    expect(html).toContain(`<link rel="stylesheet" href="${UI_ASSETS.style}"/>`);
    // Nothing from another host: every src and href is a path or a data URL.
    for (const [, url] of html.matchAll(/\b(?:src|href)="([^"]*)"/g)) expect(url).toMatch(/^(\/|#|data:)/);
  });

  it("keeps the page to its own origin with a strict Content-Security-Policy and no framing", async () => {
    const { res } = await page();
    expect(res.headers.get("Content-Security-Policy")).toBe(UI_CSP);
    expect(UI_CSP).toContain("script-src 'self'");
    expect(UI_CSP).toContain("connect-src 'self'");
    expect(UI_CSP).toContain("frame-ancestors 'none'");
    expect(UI_CSP).not.toContain("unsafe-inline");
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });

  it("has a Duplicates tab whose panel holds the suggestions list and its refresh button", async () => {
    const { html } = await page();
    expect(html).toContain('id="tab-dups" aria-controls="panel-dups"');
    expect(html).toMatch(/<section role="tabpanel" id="panel-dups" aria-labelledby="tab-dups"[^>]*hidden/);
    expect(html).toContain('<ul id="dups" class="changes" aria-label="Likely duplicates">');
    expect(html).toMatch(/<button type="button" id="dups-refresh">\s*Find duplicates/);
  });

  it("labels every form control", async () => {
    const { html } = await page();
    const { labels, controls } = labelsAndControls(html);
    expect(controls).toEqual(expect.arrayContaining(["token", "context", "q"]));
    for (const id of controls) expect(labels.has(id), `control #${id} has a label`).toBe(true);
  });

  it("tells the client it is in open local mode on loopback with no ADMIN_TOKEN, and hides the sign-in form", async () => {
    for (const url of ["http://127.0.0.1:8787/", "http://localhost:8787/", "http://[::1]:8787/"]) {
      const { html } = await page(open, url);
      expect(html).toContain('data-open-mode="true"');
      expect(html).toMatch(/<form id="signin"[^>]*hidden/);
    }
  });

  it("offers no token minting in open local mode, where the server mints none, and says why", async () => {
    const { html } = await page(open);
    expect(html).toMatch(/<form id="admin-token-form"[^>]*hidden/);
    const note = /<p id="admin-token-mode"([^>]*)>([\s\S]*?)<\/p>/.exec(html);
    expect(note?.[1]).not.toContain("hidden");
    expect((note?.[2] ?? "").replace(/<[^>]+>/g, "")).toContain("tokens need an ADMIN_TOKEN");
    const withToken = await page(secured);
    expect(withToken.html).not.toMatch(/<form id="admin-token-form"[^>]*hidden/);
    expect(withToken.html).toMatch(/<p id="admin-token-mode"[^>]*hidden/);
  });

  it("asks for a token once ADMIN_TOKEN is set, and off loopback", async () => {
    for (const [f, url] of [
      [secured, "http://127.0.0.1:8787/"],
      [secured, "https://memory.example.com/"],
      // No ADMIN_TOKEN off loopback: the page loads, and its calls are refused (403) with the fix.
      [open, "https://memory.example.com/"],
    ] as const) {
      const { res, html } = await page(f, url);
      expect(res.status).toBe(200);
      expect(html).toContain('data-open-mode="false"');
      expect(html).not.toMatch(/<form id="signin"[^>]*hidden/);
    }
  });

  it("tells a signed-out visitor where a token comes from, and hides that help in open local mode", async () => {
    const { html } = await page(secured, "https://memory.example.com/");
    const help = /<section id="signin-help"[^>]*>([\s\S]*?)<\/section>/.exec(html);
    expect(help?.[0]).not.toMatch(/<section id="signin-help"[^>]*hidden/);
    const text = (help?.[1] ?? "")
      .replace(/<[^>]+>/g, "")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&#39;", "'");
    expect(text).toContain("npm run admin -- token create <your-name> --grant '<context>=write'");
    expect(text).toContain("ADMIN_TOKEN");
    expect(text).toContain("open local mode");
    expect(text).toContain("This server has an administrator token");
    // No ADMIN_TOKEN, reached by another name: the help says why the calls are refused and how to fix it.
    const off = await page(open, "https://memory.example.com/");
    expect(off.html).toContain("This server has no administrator token");
    expect(off.html).toContain("wrangler secret put ADMIN_TOKEN");
    const local = await page(open, "http://127.0.0.1:8787/");
    expect(local.html).toMatch(/<section id="signin-help"[^>]*hidden/);
  });

  it("holds no memory data and needs no token, while the calls it makes do", async () => {
    const { res } = await page(secured, "https://memory.example.com/");
    expect(res.status).toBe(200);
    const call = await secured("https://memory.example.com/mcp", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(call.status).toBe(401);
    const stats = await secured("https://memory.example.com/api/contexts/default/stats");
    expect(stats.status).toBe(401);
  });
});
