#!/usr/bin/env node
/**
 * Checks the README and docs/ the way a reader would trip over them:
 *   - README.md is at most 15,000 bytes (a manual read in five minutes; the rest lives in docs/);
 *   - no line of README.md or docs/**\/*.md is over 400 characters (one sentence per line, or wrapped);
 *   - every relative link resolves: the file or folder exists, and a `#anchor` names a heading of
 *     the target (GitHub's heading ids) when the target is Markdown.
 * Plain Node, no dependencies. Exits 1 and prints one line per problem, `file:line: what`.
 *
 *   node scripts/check-docs.mjs
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const README_MAX_BYTES = 15_000;
const LINE_MAX_CHARS = 400;

/** README.md and every Markdown file under docs/, as paths relative to the repository. */
function documents() {
  const found = ["README.md"];
  const walk = (dir) => {
    for (const name of readdirSync(join(ROOT, dir)).sort()) {
      const path = join(dir, name);
      if (statSync(join(ROOT, path)).isDirectory()) walk(path);
      else if (name.endsWith(".md")) found.push(path);
    }
  };
  if (existsSync(join(ROOT, "docs"))) walk("docs");
  return found;
}

/** The lines of a Markdown file with fenced code blocks blanked, so their text is neither a link nor a heading. */
function proseLines(text) {
  let fence = null;
  return text.split("\n").map((line) => {
    const open = /^\s*(```+|~~~+)/.exec(line);
    if (fence) {
      if (open && open[1][0] === fence[0] && open[1].length >= fence.length) fence = null;
      return "";
    }
    if (open) {
      fence = open[1];
      return "";
    }
    return line;
  });
}

/** GitHub's id for a heading: lower case, punctuation dropped, each space a hyphen, repeats numbered. */
function headingIds(text) {
  const ids = new Set();
  const seen = new Map();
  for (const line of proseLines(text)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const plain = m[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/<[^>]+>/g, "")
      .replace(/[`*]/g, "");
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** Inline links `[text](target)` and `<a href="target">` outside code spans, with their line numbers. */
function links(text) {
  const out = [];
  proseLines(text).forEach((line, i) => {
    const bare = line.replace(/(`+)[\s\S]*?\1/g, (s) => " ".repeat(s.length));
    for (const m of bare.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1] });
    for (const m of bare.matchAll(/<a\s[^>]*href="([^"]+)"/g)) out.push({ line: i + 1, target: m[1] });
  });
  return out;
}

const problems = [];
const idsOf = new Map();
const idsFor = (path) => {
  if (!idsOf.has(path)) idsOf.set(path, headingIds(readFileSync(join(ROOT, path), "utf8")));
  return idsOf.get(path);
};

for (const file of documents()) {
  const text = readFileSync(join(ROOT, file), "utf8");
  if (file === "README.md") {
    const bytes = Buffer.byteLength(text);
    if (bytes > README_MAX_BYTES) {
      problems.push(`README.md: ${bytes} bytes, over the ${README_MAX_BYTES}-byte budget; move detail to docs/`);
    }
  }
  text.split("\n").forEach((line, i) => {
    const chars = [...line].length;
    if (chars > LINE_MAX_CHARS) problems.push(`${file}:${i + 1}: line of ${chars} characters, over ${LINE_MAX_CHARS}; break it after a sentence`);
  });
  for (const { line, target } of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // http:, mailto: and the like
    const hash = target.indexOf("#");
    const pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const dest = pathPart === "" ? file : relative(ROOT, resolve(ROOT, dirname(file), pathPart));
    if (dest.startsWith("..")) {
      problems.push(`${file}:${line}: link ${target} leaves the repository`);
      continue;
    }
    if (!existsSync(join(ROOT, dest))) {
      problems.push(`${file}:${line}: link ${target}: ${dest} does not exist`);
      continue;
    }
    if (anchor !== null && dest.endsWith(".md") && !idsFor(dest).has(anchor)) {
      problems.push(`${file}:${line}: link ${target}: no heading with id "${anchor}" in ${dest}`);
    }
  }
}

if (problems.length > 0) {
  console.error(`check-docs: ${problems.length} problem${problems.length === 1 ? "" : "s"}`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(`check-docs: README.md and docs/ fine (links resolve, README within ${README_MAX_BYTES} bytes, lines within ${LINE_MAX_CHARS} characters)`);
