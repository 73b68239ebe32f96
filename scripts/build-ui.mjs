#!/usr/bin/env node
/**
 * Builds the web page's client (src/ui/client) into Workers static assets:
 * dist/assets/ui/app.js (one minified ES module) and dist/assets/ui/app.css.
 * wrangler runs it before `wrangler dev` and `wrangler deploy` ([build] in
 * wrangler.toml); `npm run build:ui` runs it by hand. Prints the bytes
 * shipped, raw and gzipped.
 */
import { gzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = `${root}dist/assets/ui`;

const result = await build({
  absWorkingDir: root,
  entryPoints: [
    { in: "src/ui/client/dom/main.ts", out: "app" },
    { in: "src/ui/client/app.css", out: "app" },
  ],
  outdir,
  bundle: true,
  minify: true,
  format: "esm",
  target: ["es2022", "chrome111", "firefox114", "safari16.4"],
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
});

let raw = 0;
let gzip = 0;
for (const file of Object.keys(result.metafile.outputs)) {
  const bytes = readFileSync(`${root}${file}`);
  const zipped = gzipSync(bytes, { level: 9 }).length;
  raw += bytes.length;
  gzip += zipped;
  console.error(`ui: ${file} ${bytes.length} B (${zipped} B gzipped)`);
}
console.error(`ui: client total ${raw} B (${gzip} B gzipped)`);
