#!/usr/bin/env node
/**
 * `npm run bench:recall`: how often engram's search finds the turn that
 * answers a question, on LoCoMo conversations (issue 22), beside a textbook
 * Okapi BM25 over the same turns in the same run (bench/recall/bm25.mjs).
 *
 *   npm run bench:recall                           # the conversations in ../shared/locomo-dev
 *   npm run bench:recall -- --data DIR             # another folder of LoCoMo <id>.json files
 *   npm run bench:recall -- --json out.json        # also write the numbers
 *   npm run bench:recall -- --tuned '{"topPerToken":5}'
 *   ENGRAM_TOKEN=<admin token> npm run bench:recall -- --url https://engram.example.workers.dev
 *                                                  # a running server, e.g. a deployment with the AI binding (hybrid mode)
 *
 * Each conversation turn is one entity (bench/recall/locomo.mjs), loaded
 * through MCP into fresh contexts of a `wrangler dev` on loopback (open local
 * mode), one context per method so one method's search accesses never move
 * another's priorities. Every question but the adversarial ones is asked as
 * written, through `search_nodes` with its defaults and with the tuned
 * arguments and through `recall` with its defaults, interleaved. Each method's search accesses build up over
 * its questions as an agent's would; they are written before the next
 * question (settleAccesses), so a run's ranking never depends on timing and
 * two runs give the same hits. A question is a hit@k when one of its
 * evidence turns is among the first k entities returned (in the order
 * returned: entry nodes, then connectors); MRR averages 1/rank of the first
 * evidence turn among those returned (search_nodes returns at most 50 by
 * default; BM25 is cut at the same 50), 0 when none is. Latency is end to end
 * per MCP call for search_nodes, in-process for BM25. The data is read where
 * it is, never copied into the project; wrangler and its state are removed at
 * the end, also on error or Ctrl-C.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { attachEngram, startEngram, stopWithProcess } from "../lib/engram.mjs";
import { load as loadAverage, machine } from "../lib/proc.mjs";
import { ms, renderMachine } from "../lib/report.mjs";
import { summarize } from "../lib/stats.mjs";
import { RPC_MS_META } from "../lib/workload.mjs";
import { bm25Index } from "./bm25.mjs";
import { CATEGORIES, conversationFiles, firstHit, readConversation } from "./locomo.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const outDir = path.join(root, "bench", "out");

/**
 * The tuned row's arguments: the best hit@5 of a small grid on the three
 * development conversations (topPerToken 3, 5, 10, 20; minRelativeScore 0,
 * 0.1, 0.3; maxPathLength 0, 5): the most entries per word the tool accepts.
 * minRelativeScore and maxPathLength changed no hit@5 there.
 */
const TUNED = { topPerToken: 20 };
/** As deep as search_nodes answers by default (SEARCH_MAX_TOTAL_NODES), so MRR is over the same depth. */
const DEPTH = 50;

const { values: opts } = parseArgs({
  options: {
    data: { type: "string", default: path.join(root, "..", "shared", "locomo-dev") },
    json: { type: "string" },
    tuned: { type: "string", default: JSON.stringify(TUNED) },
    "no-dates": { type: "boolean", default: false },
    timeout: { type: "string", default: "60" },
    var: { type: "string", multiple: true, default: [] },
    url: { type: "string" },
    help: { type: "boolean", default: false },
  },
});

if (opts.help) {
  console.log(`npm run bench:recall -- [--data DIR] [--json FILE] [--tuned '${JSON.stringify(TUNED)}'] [--no-dates] [--timeout 60] [--var NAME=value ...] [--url URL]
--data: a folder of LoCoMo conversation files (<id>.json); default ../shared/locomo-dev beside the checkout.
--tuned: the search_nodes arguments of the tuned row, as JSON (limit, minRelativeScore, topPerToken, maxPathLength, maxTotalNodes).
--no-dates: store each turn without its session date (the date is a second observation by default).
--timeout: seconds per MCP call.
--var: a setting for the server under test, e.g. --var SEARCH_EXPANSION=false (repeatable; docs/operations.md#settings).
--url: measure a server already running there (a deployment with the AI binding measures hybrid mode) instead of
       starting wrangler dev; ENGRAM_TOKEN must hold its administrator's token, and the bench purges its contexts at the end.`);
  process.exit(0);
}

const fail = (message) => {
  console.error(message);
  process.exit(1);
};
const dataDir = path.resolve(opts.data);
let files;
try {
  files = conversationFiles(dataDir);
} catch (error) {
  fail(error.message);
}
let tuned;
try {
  tuned = JSON.parse(opts.tuned);
} catch {
  fail(`--tuned must be a JSON object of search_nodes arguments, got ${opts.tuned}`);
}
const TUNABLE = ["limit", "minRelativeScore", "topPerToken", "maxPathLength", "maxTotalNodes"];
if (!tuned || typeof tuned !== "object" || Array.isArray(tuned)) fail(`--tuned must be a JSON object of search_nodes arguments (${TUNABLE.join(", ")})`);
for (const [k, v] of Object.entries(tuned)) {
  if (!TUNABLE.includes(k) || typeof v !== "number") fail(`--tuned: ${k} is not a numeric search_nodes argument; use ${TUNABLE.join(", ")}`);
}
const timeoutMs = Number(opts.timeout) * 1000;
if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) fail(`--timeout must be a positive number of seconds, got "${opts.timeout}"`);

const vars = {};
for (const v of opts.var) {
  const eq = v.indexOf("=");
  if (eq <= 0) fail(`--var must be NAME=value, got "${v}"`);
  vars[v.slice(0, eq)] = v.slice(eq + 1);
}

const log = (line) => console.error(line);
let conversations;
try {
  conversations = files.map((f) => readConversation(f, { dates: !opts["no-dates"] }));
} catch (error) {
  fail(`LoCoMo data not readable: ${error.message}`);
}
const METHODS = [
  { key: "defaults", label: "search_nodes (defaults)", args: {} },
  {
    key: "tuned",
    label: `search_nodes (tuned: ${Object.entries(tuned)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")})`,
    args: tuned,
  },
  { key: "recall", label: "recall (defaults)", tool: "recall", args: {} },
  { key: "bm25", label: "BM25 baseline (k1 1.2, b 0.75)" },
];

/** Loads a conversation's turns into a fresh context; every entity must be new. */
async function loadTurns(client, entities) {
  for (let i = 0; i < entities.length; i += 1000) {
    const chunk = entities.slice(i, i + 1000);
    const result = await client.callTool({ name: "create_entities", arguments: { entities: chunk } }, undefined, { timeout: timeoutMs });
    if (result.isError) throw new Error(`create_entities failed: ${result.content?.[0]?.text ?? "(no message)"}`);
    const created = result.structuredContent?.entities?.length;
    if (created !== chunk.length) throw new Error(`create_entities created ${created} of ${chunk.length} turns: the context is not fresh`);
  }
}

/**
 * One search_nodes (or recall) call: the entity names in the order returned,
 * and its time end to end. recall's items are all entities here (the bench
 * stores no files or documents), matches first, then connectors.
 */
async function search(client, query, args, tool = "search_nodes") {
  const started = performance.now();
  const result = await client.callTool({ name: tool, arguments: { query, ...args } }, undefined, { timeout: timeoutMs });
  const elapsed = performance.now() - started;
  if (result.isError) throw new Error(`${tool} failed for ${JSON.stringify({ query, ...args })}: ${result.content?.[0]?.text ?? "(no message)"}`);
  const engineMs = result._meta?.[RPC_MS_META];
  const found = tool === "recall" ? (result.structuredContent?.items ?? []).filter((i) => i.kind === "entity") : (result.structuredContent?.entities ?? []);
  return { names: found.map((e) => e.name), ms: elapsed, engineMs: typeof engineMs === "number" ? engineMs : undefined, mode: result.structuredContent?.mode };
}

/**
 * Writes the search hits still pending (each returned entity's search access,
 * which raises its priority a little): a search leaves them for up to a second
 * (docs/priority.md#access-tracking-and-categories), so without this a
 * question's ranking would depend on how fast the ones before it ran. Any
 * read but a search writes them first; memory_stats is a small one. Untimed.
 */
async function settleAccesses(client) {
  const result = await client.callTool({ name: "memory_stats", arguments: {} }, undefined, { timeout: timeoutMs });
  if (result.isError) throw new Error(`memory_stats failed: ${result.content?.[0]?.text ?? "(no message)"}`);
}

/** hit@1, hit@5, MRR and latency over answers [{rank, ms, category}]. */
function score(answers) {
  const n = answers.length;
  const share = (f) => (n ? answers.filter(f).length / n : null);
  const latency = summarize(answers.map((a) => a.ms));
  const engine = summarize(answers.map((a) => a.engineMs));
  const byCategory = {};
  for (const [c, name] of Object.entries(CATEGORIES)) {
    const of = answers.filter((a) => a.category === Number(c));
    if (of.length) byCategory[name] = { questions: of.length, hit5: of.filter((a) => a.rank >= 1 && a.rank <= 5).length / of.length };
  }
  return {
    questions: n,
    hit1: share((a) => a.rank === 1),
    hit5: share((a) => a.rank >= 1 && a.rank <= 5),
    mrr: n ? answers.reduce((s, a) => s + (a.rank ? 1 / a.rank : 0), 0) / n : null,
    p50: latency?.p50 ?? null,
    p95: latency?.p95 ?? null,
    /** search_nodes only: the Worker's RPC to the object (docs/performance.md), without the MCP layer and the network. */
    engine: engine && { p50: engine.p50, p95: engine.p95 },
    byCategory,
  };
}

const results = {
  machine: machine(),
  startedAt: new Date().toISOString(),
  config: {
    data: path.basename(dataDir),
    server: opts.url ?? "wrangler dev (local)",
    tuned,
    dates: !opts["no-dates"],
    depth: DEPTH,
    excludedCategories: [5],
    /** How many questions recall answered in each mode (lexical, lexical+expansion, hybrid). */
    recallModes: {},
  },
  conversations: [],
  /** Every question asked, with the 1-based rank of its first evidence turn per method (0: not among the first 50). */
  questions: [],
};
console.log(renderMachine(results.machine));

if (opts.url && Object.keys(vars).length > 0) fail("--var sets the settings of the wrangler dev the bench starts; with --url, set them on that server");
let engram;
try {
  engram = opts.url
    ? await attachEngram({ url: opts.url, log })
    : await startEngram({ root, stateDir: path.join(outDir, `recall-state-${process.pid}`), vars, log });
} catch (error) {
  fail(`bench:recall: ${error.message}`);
}
stopWithProcess(engram, log);

const answers = Object.fromEntries(METHODS.map((m) => [m.key, []]));
try {
  for (const conv of conversations) {
    log(`\n== conversation ${conv.id}: ${conv.entities.length} turns, ${conv.questions.length} questions (${conv.skipped.adversarial} adversarial left out)`);
    const row = { id: conv.id, turns: conv.entities.length, skipped: conv.skipped, loadAverage: loadAverage(), methods: {} };
    const clients = {};
    for (const m of METHODS.filter((m) => m.args)) {
      const context = `recall-${m.key}-${process.pid}-${conv.id}`
        .toLowerCase()
        .replace(/[^a-z0-9._-]/g, "-")
        .slice(0, 64);
      clients[m.key] = await engram.connect(context);
      const t0 = performance.now();
      await loadTurns(clients[m.key], conv.entities);
      log(`${m.key}: loaded into ${context} in ${ms(performance.now() - t0)} ms`);
    }
    const t0 = performance.now();
    const bm25 = bm25Index(conv.entities.map((e) => ({ id: e.name, text: `${e.entityType} ${e.observations.join(" ")}` })));
    log(`bm25: indexed in ${ms(performance.now() - t0)} ms`);
    // Untimed warm-up calls that match nothing, so no turn gains a search access before the questions.
    for (const m of METHODS.filter((m) => m.args)) for (let i = 0; i < 3; i++) await search(clients[m.key], "zqxjv", m.args, m.tool);
    const mine = Object.fromEntries(METHODS.map((m) => [m.key, []]));
    for (const q of conv.questions) {
      const ranks = {};
      for (const m of METHODS) {
        let names;
        let elapsed;
        let engineMs;
        if (m.args) {
          let mode;
          ({ names, ms: elapsed, engineMs, mode } = await search(clients[m.key], q.question, m.args, m.tool));
          if (mode) results.config.recallModes[mode] = (results.config.recallModes[mode] ?? 0) + 1;
          await settleAccesses(clients[m.key]);
        } else {
          const started = performance.now();
          names = bm25.search(q.question, DEPTH).map((r) => r.id);
          elapsed = performance.now() - started;
        }
        const answer = { rank: firstHit(names.slice(0, DEPTH), q.evidence), ms: elapsed, engineMs, category: q.category, returned: names.length };
        mine[m.key].push(answer);
        answers[m.key].push(answer);
        ranks[m.key] = answer.rank;
      }
      results.questions.push({ conversation: conv.id, question: q.question, category: q.category, evidence: q.evidence, ranks });
    }
    for (const client of Object.values(clients)) await client.close();
    for (const m of METHODS) row.methods[m.key] = score(mine[m.key]);
    results.conversations.push(row);
    log(`hit@5: ${METHODS.map((m) => `${m.key} ${pct(row.methods[m.key].hit5)}`).join(", ")}`);
  }
} catch (error) {
  log(`\nThe server's last output:\n${engram.output()}`);
  log(`\nbench:recall stopped: ${error.message}`);
  process.exitCode = 1;
} finally {
  await engram.stop();
}
if (process.exitCode) process.exit();

results.overall = Object.fromEntries(METHODS.map((m) => [m.key, score(answers[m.key])]));
results.methods = Object.fromEntries(METHODS.map((m) => [m.key, m.label]));
results.meanReturned = Object.fromEntries(
  METHODS.map((m) => [m.key, Math.round((answers[m.key].reduce((s, a) => s + a.returned, 0) / Math.max(1, answers[m.key].length)) * 10) / 10]),
);

function pct(v) {
  return v === null || v === undefined ? "–" : `${(v * 100).toFixed(1)}%`;
}

function table(header, rows) {
  return [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function render(r) {
  const rows = [];
  const line = (set, key, s) => [set, r.methods[key], s.questions, pct(s.hit1), pct(s.hit5), s.mrr === null ? "–" : s.mrr.toFixed(3), ms(s.p50), ms(s.p95)];
  for (const c of r.conversations) for (const key of Object.keys(r.methods)) rows.push(line(`conversation ${c.id} (${c.turns} turns)`, key, c.methods[key]));
  const turns = r.conversations.reduce((n, c) => n + c.turns, 0);
  for (const key of Object.keys(r.methods)) rows.push(line(`**all** (${turns} turns)`, key, r.overall[key]));
  const out = [table(["conversation", "method", "questions", "hit@1", "hit@5", "MRR", "p50 ms", "p95 ms"], rows)];
  const names = Object.values(CATEGORIES).filter((c) => r.overall.bm25.byCategory[c]);
  out.push(
    "",
    "hit@5 by LoCoMo category, all conversations:",
    "",
    table(
      ["method", ...names.map((c) => `${c} (${r.overall.bm25.byCategory[c].questions})`)],
      Object.keys(r.methods).map((key) => [r.methods[key], ...names.map((c) => pct(r.overall[key].byCategory[c]?.hit5))]),
    ),
  );
  const ratio = (key) => (r.overall.bm25.hit5 ? (r.overall[key].hit5 / r.overall.bm25.hit5).toFixed(2) : "–");
  out.push(
    "",
    `hit@5 ÷ BM25 hit@5: search_nodes defaults ${ratio("defaults")}, tuned ${ratio("tuned")}; recall ${ratio("recall")}.`,
    `Mean entities returned per question: ${Object.entries(r.meanReturned)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")} (BM25 cut at ${r.config.depth}).`,
    `Left out: ${r.conversations.reduce((n, c) => n + c.skipped.adversarial, 0)} adversarial (category 5) questions, ` +
      `${r.conversations.reduce((n, c) => n + c.skipped.noEvidence, 0)} with no evidence turn. ` +
      `Turns stored ${r.config.dates ? "with" : "without"} their session date. Latency: search_nodes end to end over MCP, BM25 in process.`,
    `Server: ${r.config.server}; recall's mode: ${Object.entries(r.config.recallModes)
      .map(([mode, n]) => `${mode} (${n} questions)`)
      .join(", ")}.`,
  );
  return out.join("\n");
}

console.log(`\n${render(results)}`);
if (opts.json) {
  const file = path.resolve(opts.json);
  fs.writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nResults: ${file}`);
}
