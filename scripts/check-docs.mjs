#!/usr/bin/env node
/**
 * Checks the README and docs/ the way a reader would trip over them:
 *   - README.md is at most 15,000 bytes (a manual read in five minutes; the rest lives in docs/);
 *   - no line of README.md or docs/**\/*.md is over 400 characters (one sentence per line, or wrapped);
 *   - every relative link resolves: the file or folder exists, and a `#anchor` names a heading of
 *     the target (GitHub's heading ids) when the target is Markdown;
 *   - every comment in src/ and test/ names only what exists: a path (`src/...`, `test/...`, `docs/...`,
 *     `bench/...`, `scripts/...`, `migrations/NNNN`, or `./x.ts`, `../x/y.ts` from the file's folder; a
 *     `#anchor` must name a heading) and a backticked identifier (`likeThis`, `Db.packed`, `run()`), which
 *     must occur in the code (strings included, comments not) of src, test, bench, scripts, migrations
 *     or wrangler.toml. Text in strings, template literals, regular expressions and JSX is not a comment.
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

// ---------------------------------------------------------------------------------------------
// Comments in src/ and test/: every path and every backticked identifier they name exists.

/** Source folders whose code defines the identifiers a comment may name, and wrangler.toml for the bindings. */
const SOURCE_DIRS = ["src", "test", "bench", "scripts", "migrations"];
const SOURCE_FILES = ["wrangler.toml"];
/**
 * Names defined outside the repository that comments name without the code ever spelling them, each
 * with what it is. Keep it short: a name the code uses needs no entry.
 */
const OUTSIDE_NAMES = new Map([
  ["crisismerge", "an FTS5 option, which the segment merging leaves at its default"],
  ["_data", "the suffix of FTS5's segment shadow table, <table>_data"],
]);
/** Folders whose comments are checked. */
const COMMENTED_DIRS = ["src", "test"];
const SKIP_DIRS = new Set(["node_modules", "dist", ".wrangler", "out"]);
const CODE_FILE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;

/** Files under `dir` (relative to the repository) whose names match `pattern`. */
function filesUnder(dir, pattern) {
  const found = [];
  const walk = (d) => {
    for (const name of readdirSync(join(ROOT, d)).sort()) {
      const path = join(d, name);
      if (statSync(join(ROOT, path)).isDirectory()) {
        if (!SKIP_DIRS.has(name) && path !== join("bench", "out")) walk(path);
      } else if (pattern.test(name)) found.push(path);
    }
  };
  if (existsSync(join(ROOT, dir))) walk(dir);
  return found;
}

const IDENT_START = /[A-Za-z_$]/;
const IDENT_PART = /[\w$]/;
/** Keywords after which a `/` starts a regular expression rather than dividing. */
const BEFORE_REGEX = new Set(["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "yield", "await", "instanceof"]);

/**
 * Splits JavaScript or TypeScript source into its comments and its code with the comments blanked.
 * A small lexer, not a parser: it knows strings, template literals (with `${}` nesting), regular
 * expression literals (told from division by the token before them) and, in .tsx and .jsx, JSX text and
 * attributes, so that a `//` or `/*` inside any of these is not taken for a comment.
 */
function lex(text, jsx) {
  const comments = [];
  const code = text.split("");
  const n = text.length;
  // Frames: { kind: "code", depth } | { kind: "template" } | { kind: "tag" } | { kind: "children" }.
  const stack = [{ kind: "code", depth: 0 }];
  let prev = ""; // the last significant token in code: an identifier or keyword, a punctuator, or "x" for a value
  let i = 0;
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (code[k] !== "\n") code[k] = " ";
  };
  const skipString = (quote) => {
    i++;
    while (i < n && text[i] !== quote && text[i] !== "\n") i += text[i] === "\\" ? 2 : 1;
    i++;
  };
  while (i < n) {
    const frame = stack[stack.length - 1];
    const ch = text[i];
    if (frame.kind === "template") {
      if (ch === "\\") i += 2;
      else if (ch === "`") {
        stack.pop();
        prev = "x";
        i++;
      } else if (ch === "$" && text[i + 1] === "{") {
        stack.push({ kind: "code", depth: 0 });
        prev = "{";
        i += 2;
      } else i++;
      continue;
    }
    if (frame.kind === "children") {
      if (ch === "{") {
        stack.push({ kind: "code", depth: 0 });
        prev = "{";
        i++;
      } else if (ch === "<" && text[i + 1] === "/") {
        while (i < n && text[i] !== ">") i++;
        i++;
        stack.pop(); // the element ends
        if (stack[stack.length - 1].kind === "code") prev = "x";
      } else if (ch === "<") {
        stack.push({ kind: "tag" });
        i++;
      } else i++;
      continue;
    }
    if (frame.kind === "tag") {
      if (ch === '"' || ch === "'") skipString(ch);
      else if (ch === "{") {
        stack.push({ kind: "code", depth: 0 });
        prev = "{";
        i++;
      } else if (ch === "/" && text[i + 1] === ">") {
        i += 2;
        stack.pop();
        if (stack[stack.length - 1].kind === "code") prev = "x";
      } else if (ch === ">") {
        i++;
        stack[stack.length - 1] = { kind: "children" };
      } else i++;
      continue;
    }
    // Code.
    if (ch === "/" && text[i + 1] === "/") {
      let end = text.indexOf("\n", i);
      if (end === -1) end = n;
      comments.push({ start: i, text: text.slice(i, end) });
      blank(i, end);
      i = end;
    } else if (ch === "/" && text[i + 1] === "*") {
      let end = text.indexOf("*/", i + 2);
      end = end === -1 ? n : end + 2;
      comments.push({ start: i, text: text.slice(i, end) });
      blank(i, end);
      i = end;
    } else if (ch === '"' || ch === "'") {
      skipString(ch);
      prev = "x";
    } else if (ch === "`") {
      stack.push({ kind: "template" });
      i++;
    } else if (ch === "/" && (prev === "" || BEFORE_REGEX.has(prev) || (prev.length === 1 && "(,=:[!&|?{};+-*%<>~^".includes(prev)))) {
      let inClass = false;
      i++;
      while (i < n && text[i] !== "\n") {
        if (text[i] === "\\") i++;
        else if (text[i] === "[") inClass = true;
        else if (text[i] === "]") inClass = false;
        else if (text[i] === "/" && !inClass) break;
        i++;
      }
      i++;
      while (i < n && IDENT_PART.test(text[i])) i++;
      prev = "x";
    } else if (jsx && ch === "<" && /[A-Za-z>]/.test(text[i + 1] ?? "") && (prev === "" || BEFORE_REGEX.has(prev) || "(,=:[!&|?{};>".includes(prev))) {
      stack.push({ kind: "tag" });
      i++;
    } else if (IDENT_START.test(ch) || /\d/.test(ch)) {
      const from = i;
      while (i < n && IDENT_PART.test(text[i])) i++;
      const word = text.slice(from, i);
      prev = BEFORE_REGEX.has(word) ? word : "x";
    } else if (ch === "{") {
      frame.depth++;
      prev = "{";
      i++;
    } else if (ch === "}") {
      if (frame.depth === 0 && stack.length > 1) {
        stack.pop(); // back to the template or JSX that opened this expression
        prev = "x";
      } else {
        frame.depth--;
        prev = "}";
      }
      i++;
    } else if (ch === ")" || ch === "]") {
      prev = "x";
      i++;
    } else {
      if (!/\s/.test(ch)) prev = ch;
      i++;
    }
  }
  return { comments, code: code.join("") };
}

/** The line (1-based) of offset `at` in `text`. */
const lineAt = (text, at) => {
  let line = 1;
  for (let k = text.indexOf("\n"); k !== -1 && k < at; k = text.indexOf("\n", k + 1)) line++;
  return line;
};

/** Words of SQL with its `--` comments dropped. */
const sqlCode = (text) => text.replace(/--[^\n]*/g, "");

/** Every word the source's code (strings included, comments not) holds: what a backticked name may be. */
function sourceWords(lexed) {
  const words = new Set();
  for (const dir of SOURCE_DIRS) {
    for (const file of filesUnder(dir, /\.(?:[cm]?[jt]s|tsx|jsx|sql)$/)) {
      const code = file.endsWith(".sql") ? sqlCode(readFileSync(join(ROOT, file), "utf8")) : lexed(file).code;
      for (const m of code.matchAll(/[A-Za-z_$][\w$]*/g)) words.add(m[0]);
    }
  }
  for (const file of SOURCE_FILES) {
    for (const m of readFileSync(join(ROOT, file), "utf8").matchAll(/[A-Za-z_$][\w$]*/g)) words.add(m[0]);
  }
  for (const name of OUTSIDE_NAMES.keys()) words.add(name);
  return words;
}

const PATH_IN_COMMENT = /(?<![\w./@-])((?:src|test|docs|bench|scripts|migrations)\/[\w./*{},#-]*|\.\.?\/[\w./*{},#-]+)/g;
const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$/;

/**
 * Whether `path` (relative to the repository) names a file or folder: as written, as a module specifier
 * without its extension, or as a migration by its number (migrations/0014 for migrations/0014_*.sql).
 */
function pathExists(path) {
  if (["", ".ts", ".tsx", ".mjs", "/index.ts"].some((ext) => existsSync(join(ROOT, path + ext)))) return true;
  const migration = /^(migrations(?:\/registry)?)\/(\d{4})$/.exec(path);
  return migration !== null && existsSync(join(ROOT, migration[1])) && readdirSync(join(ROOT, migration[1])).some((name) => name.startsWith(`${migration[2]}_`));
}

function checkComments() {
  const cache = new Map();
  const lexed = (file) => {
    if (!cache.has(file)) cache.set(file, lex(readFileSync(join(ROOT, file), "utf8"), /x$/.test(file)));
    return cache.get(file);
  };
  const words = sourceWords(lexed);
  for (const dir of COMMENTED_DIRS) {
    for (const file of filesUnder(dir, CODE_FILE)) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const comment of lexed(file).comments) {
        const line = (offset) => lineAt(text, comment.start + offset);
        for (const m of comment.text.matchAll(PATH_IN_COMMENT)) {
          const written = m[1].replace(/[.,:;]+$/, "");
          // A glob or pattern, or an example of a path a tool normalises (`./notes//a.md/`), not a file of the repository.
          if (/[*{}]/.test(written) || written.includes("//") || written === "." || written === "..") continue;
          const [pathPart, anchor] = written.split("#");
          const dest = pathPart.startsWith(".") ? relative(ROOT, resolve(ROOT, dirname(file), pathPart)) : pathPart;
          if (!pathExists(dest)) {
            problems.push(`${file}:${line(m.index)}: comment names ${written}, but ${dest} does not exist`);
          } else if (anchor !== undefined && dest.endsWith(".md") && !idsFor(dest).has(anchor)) {
            problems.push(`${file}:${line(m.index)}: comment names ${written}, but ${dest} has no heading with id "${anchor}"`);
          }
        }
        for (const m of comment.text.matchAll(/`([^`\n]+)`/g)) {
          if (!IDENTIFIER.test(m[1])) continue;
          const missing = m[1]
            .replace(/\(\)$/, "")
            .split(".")
            .filter((part) => !words.has(part));
          if (missing.length > 0) {
            problems.push(
              `${file}:${line(m.index)}: comment names \`${m[1]}\`, but ${missing.join(", ")} appears nowhere in the code of ${[...SOURCE_DIRS, ...SOURCE_FILES].join(", ")}`,
            );
          }
        }
      }
    }
  }
}

checkComments();

if (problems.length > 0) {
  console.error(`check-docs: ${problems.length} problem${problems.length === 1 ? "" : "s"}`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log(
  `check-docs: README.md and docs/ fine (links resolve, README within ${README_MAX_BYTES} bytes, lines within ${LINE_MAX_CHARS} characters); comments in src/ and test/ name only paths and identifiers that exist`,
);
