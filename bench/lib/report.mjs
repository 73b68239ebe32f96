/**
 * Turns the run's results into Markdown tables for stdout (and docs/performance.md,
 * whose latest run the README's table summarises).
 * Reads only the JSON shape run.mjs writes, so an old results file can be
 * re-rendered: `node bench/run.mjs --render bench/out/<file>.json`.
 */

import { summarize } from "./stats.mjs";

export const ms = (v) => (v === null || v === undefined ? "–" : v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString("en-US"));
const pct = (s) => (s ? `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}` : "–");
const num = (v) => (v === null || v === undefined ? "–" : v.toLocaleString("en-US"));
const mib = (bytes) => (bytes === null || bytes === undefined ? "–" : `${(bytes / 2 ** 20).toFixed(1)} MiB`);
const mem = (m) => (m ? `${m.rssMiB} MiB (peak ${m.peakMiB})` : "–");
/** How much the resident memory grew during the size's queries (flat in graph size when no query reads the whole graph). */
const queryGrowth = (before, after) => (before && after ? `, queries ${after.rssMiB - before.rssMiB >= 0 ? "+" : ""}${after.rssMiB - before.rssMiB} MiB` : "");
const ratio = (a, b) => (a && b ? (a / b).toPrecision(3) : "–");

function table(header, rows) {
  const lines = [`| ${header.join(" | ")} |`, `|${header.map(() => "---").join("|")}|`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

export function renderMachine(m) {
  const busy = m.loadAverage === undefined ? "" : `, load average ${m.loadAverage} at start`;
  return `Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}, Node ${m.node}${busy}`;
}

/** The context's database bytes per entity of the size (its observations and relations included). */
const bytesPerEntity = (r) => (r.engram.stats?.databaseSize && r.size ? Math.round(r.engram.stats.databaseSize / r.size) : null);

/** The size's Registry count as one line (the Registry counts the calls itself; GET /api/admin/registry-calls). */
export function registryLine(r) {
  const g = r.engram.registry;
  const restarts = g?.restarts ? `; the Registry restarted ${g.restarts} time(s) in between, its counts added up` : "";
  const what = g
    ? `${num(g.per1000)} (${num(g.calls)} Registry calls over ${num(g.toolCalls)} timed tool calls, reads and writes mixed, after warm-up${restarts})`
    : "– (not read: the count needs the admin's token or open local mode)";
  return `${num(r.size)} entities: Registry calls per 1,000 tool calls: ${what}`;
}

function engramRow(r) {
  const e = r.engram;
  const q = e.queries ?? {};
  const mcpLayer = q.trivial?.e2e && q.http?.e2e ? q.trivial.e2e.p50 - q.http.e2e.p50 : null;
  const overPost = q.trivial?.e2e && q.httpPost?.e2e ? q.trivial.e2e.p50 - q.httpPost.e2e.p50 : null;
  return [
    num(r.size),
    `${num(e.load.entitiesPerSec)} (${ms((e.load.entityEngineMs ?? e.load.batchEngineMs)?.p50)})`,
    e.load.relationEngineMs ? `${num(e.load.relationsPerSec)} (${ms(e.load.relationEngineMs.p50)})` : num(e.load.relationsPerSec),
    pct(q.search?.e2e),
    pct(q.search?.engine),
    pct(e.inObject?.inObject),
    pct(q.open?.e2e),
    pct(q.open?.engine),
    q.trivial ? `${ms(q.trivial.e2e?.p50)} (${ms(q.trivial.engine?.p50)})` : "–",
    ms(q.http?.e2e?.p50),
    ms(mcpLayer),
    ms(q.httpPost?.e2e?.p50),
    ms(overPost),
    pct(q.write?.e2e),
    pct(q.write?.engine),
    e.registry ? num(e.registry.per1000) : "–",
    mib(e.stats?.databaseSize),
    num(bytesPerEntity(r)),
    mem(e.memory) + queryGrowth(e.memoryBeforeQueries, e.memory),
    r.loadAverage ?? "–",
  ];
}

/**
 * p50 of both servers over the calls both answered (same index = same
 * query), so a server whose budget cut its run short is compared on the
 * same queries, not on an easier prefix against a full set.
 */
function paired(e, o) {
  if (!e?.samples || !o?.samples) return null;
  const both = [];
  for (let i = 0; i < Math.min(e.samples.length, o.samples.length); i++) {
    if (e.samples[i] !== null && o.samples[i] !== null) both.push(i);
  }
  if (both.length === 0) return null;
  return { n: both.length, e: summarize(both.map((i) => e.samples[i])).p50, o: summarize(both.map((i) => o.samples[i])).p50 };
}

function pairedRatio(p, planned) {
  if (!p) return "–";
  return p.n < planned ? `${ratio(p.e, p.o)} (${p.n} queries)` : ratio(p.e, p.o);
}

function comparisonRow(r) {
  const e = r.engram;
  const o = r.official;
  const eSearch = e.queries?.search?.e2e?.p50;
  const oSearch = o?.queries?.search?.e2e?.p50;
  const notes = [];
  if (!o) notes.push("not run");
  else {
    if (o.skipped) notes.push(o.skipped);
    if (o.load?.aborted) {
      const loaded = `${num(o.load.entities)} entities and ${num(o.load.relations)} relations`;
      notes.push(`load stopped at the budget after ${loaded}${o.completedByFile ? "; the rest written into its memory.jsonl for the queries" : ""}`);
    }
    for (const [what, m] of Object.entries(o.queries ?? {})) if (m.cut) notes.push(`${what}: ${m.cut}`);
  }
  return [
    num(r.size),
    `${num(e.load.entitiesPerSec)} / ${num(o?.load?.entitiesPerSec)}`,
    ratio(e.load.entitiesPerSec, o?.load?.entitiesPerSec),
    `${ms(eSearch)} / ${ms(oSearch)}`,
    pairedRatio(paired(e.queries?.search, o?.queries?.search), e.queries?.search?.planned),
    `${ms(e.queries?.open?.e2e?.p50)} / ${ms(o?.queries?.open?.e2e?.p50)}`,
    pairedRatio(paired(e.queries?.open, o?.queries?.open), e.queries?.open?.planned),
    `${e.queries?.search?.meanEntities ?? "–"} / ${o?.queries?.search?.meanEntities ?? "–"}`,
    `${mib(e.stats?.databaseSize)} / ${mib(o?.fileBytes)}`,
    notes.join("; ") || "",
  ];
}

export function renderTables(results) {
  const out = [renderMachine(results.machine), ""];
  out.push(
    "Engram (times in ms, p50 / p95 / p99; engine = the Worker's awaited RPC to the Durable Object, 1 ms steps, the hop included; " +
      "in the object = each query's searchGraph repeated back to back inside the object, npm run bench:engine):",
    "",
  );
  // biome-ignore format: the table's column headings, packed
  out.push(
    table(
      [
        "entities", "load entities/s (RPC p50 per batch)", "load relations/s (RPC p50 per batch)", "search e2e", "search engine", "search in the object", "open_nodes e2e",
        "open_nodes engine", "trivial tool p50 (engine)", "HTTP /health p50", "MCP layer p50", "HTTP POST p50", "MCP layer over POST p50",
        "add_observations e2e", "add_observations engine", "Registry calls per 1,000 tool calls", "database", "database bytes per entity", "workerd RSS (growth during the queries)", "machine load",
      ],
      results.sizes.map(engramRow),
    ),
  );
  out.push("", "Engram vs @modelcontextprotocol/server-memory, same data, same queries, same run (engram / official):", "");
  // biome-ignore format: the table's column headings, packed
  out.push(
    table(
      [
        "entities", "load entities/s", "load ratio", "search p50 e2e ms", "search p50 ratio, same queries", "open_nodes p50 e2e ms",
        "open_nodes p50 ratio, same calls",
        "mean entities per search", "storage", "notes",
      ],
      results.sizes.map(comparisonRow),
    ),
  );
  const cuts = results.sizes.flatMap((r) =>
    ["engram", "official"].flatMap((server) =>
      Object.entries(r[server]?.queries ?? {}).flatMap(([what, m]) => [
        ...(m.cut && server === "engram" ? [`engram ${num(r.size)} ${what}: ${m.cut}`] : []),
        ...(m.errors ? [`${server} ${num(r.size)} ${what}: ${m.errors.count} of ${m.ran} calls answered with an error, e.g. ${m.errors.first}`] : []),
      ]),
    ),
  );
  for (const r of results.sizes) {
    const l = r.engram.load;
    if (l.aborted)
      cuts.push(`engram ${num(r.size)}: load stopped at the budget after ${num(l.entities)} entities and ${num(l.relations)} relations; queries skipped`);
  }
  // Runs from before the count existed have no `registry` field (null: it could not be read).
  const engramRows = results.sizes.filter((r) => r.engram.queries && "registry" in r.engram);
  if (engramRows.length) out.push("", ...engramRows.map((r) => `engram ${registryLine(r)}`));
  if (cuts.length) out.push("", ...cuts);
  if (results.notes?.length) out.push("", ...results.notes);
  return out.join("\n");
}
