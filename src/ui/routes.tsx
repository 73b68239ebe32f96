/** @jsxImportSource hono/jsx */
/**
 * The web page at `/`: the server-rendered shell (./page.tsx) with headers
 * that keep it to its own origin. The script and stylesheet it loads are
 * Workers static assets built from src/ui/client (scripts/build-ui.mjs);
 * the page's data comes from /mcp/<context> and /api with the visitor's
 * token, through the same authentication and Origin checks as any client.
 */
import { Hono } from "hono";
import { isLoopbackHost, openLocalMode } from "../auth";
import type { AppEnv } from "../app";
import { Shell } from "./page";

/** Where the built client is served from (see [assets] in wrangler.toml). */
export const UI_ASSETS = { script: "/ui/app.js", style: "/ui/app.css" } as const;

/**
 * Same-origin scripts, styles and calls only: no inline script, no third
 * party, no framing (a framed page could be tricked into clicks).
 */
export const UI_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const ui = new Hono<AppEnv>();

ui.get("/", (c) => {
  // Mirrors authenticate(): with no ADMIN_TOKEN only loopback requests are served, and need no token.
  const adminToken = !openLocalMode(c.env);
  const openMode = !adminToken && isLoopbackHost(new URL(c.req.url).hostname);
  c.header("Content-Security-Policy", UI_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "no-referrer");
  c.header("Cache-Control", "no-store");
  return c.html(`<!doctype html>${<Shell openMode={openMode} adminToken={adminToken} script={UI_ASSETS.script} style={UI_ASSETS.style} />}`);
});
