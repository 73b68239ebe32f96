/**
 * The workload both servers get, through the same SDK client API: a batched
 * load, then the floors (plain HTTP, MCP ping, a trivial tool call), the
 * fixed search queries and the open_nodes sets, timed end to end one at a
 * time and interleaved (one call of each kind in turn), so a ratio between
 * two kinds (search to the trivial call, the trivial call to plain HTTP)
 * compares calls made under the same conditions on a shared machine.
 *
 * ## Budgets
 * Every loop is bounded. A load that passes its time budget stops and the
 * size's queries are skipped; a kind of query that has spent its budget stops
 * after at least `minCalls` calls and says how many it ran, and the others go
 * on. A query that answers with a tool error is counted and reported, not
 * timed. Nothing here asserts a time: the numbers are reported, not judged.
 */
import { resolution, summarize } from "./stats.mjs";

/** The `_meta` key engram's tools use for the time spent in the RPC to the object. */
export const RPC_MS_META = "engram/rpcMs";
/** The request headers that ask engram to put RPC_MS_META in each result (src/mcp/tool.ts, TIMING_HEADER). */
export const TIMING_HEADERS = Object.freeze({ "Engram-Timing": "1" });

async function callTool(client, name, args, timeoutMs) {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
  const ms = performance.now() - started;
  if (result.isError) throw new Error(`${name} failed: ${result.content?.[0]?.text ?? "(no message)"}`);
  const engineMs = result._meta?.[RPC_MS_META];
  return { ms, engineMs: typeof engineMs === "number" ? engineMs : undefined, result };
}

/** Loads the graph in batches; entities first, then relations (they name entities). */
export async function load(client, graph, { batch, budgetMs, timeoutMs, log }) {
  const started = performance.now();
  const phase = async (tool, key, items) => {
    const t0 = performance.now();
    const engine = [];
    let done = 0;
    for (let i = 0; i < items.length; i += batch) {
      const chunk = items.slice(i, i + batch);
      const { engineMs, result } = await callTool(client, tool, { [key]: chunk }, timeoutMs);
      const created = result.structuredContent?.[key]?.length;
      if (created !== chunk.length) throw new Error(`${tool} created ${created} of ${chunk.length} items: the data is not fresh or not valid`);
      done += chunk.length;
      if (engineMs !== undefined) engine.push(engineMs);
      if (performance.now() - started > budgetMs && done < items.length) {
        log(`  ${tool}: stopped after ${done} of ${items.length}, load budget of ${budgetMs / 1000} s spent`);
        return { done, ms: performance.now() - t0, engine, aborted: true };
      }
    }
    return { done, ms: performance.now() - t0, engine, aborted: false };
  };
  const entities = await phase("create_entities", "entities", graph.entities);
  const relations = entities.aborted ? { done: 0, ms: 0, engine: [], aborted: true } : await phase("create_relations", "relations", graph.relations);
  const perSecond = (p) => (p.ms > 0 ? Math.round((p.done / p.ms) * 1000) : null);
  return {
    entities: entities.done,
    entitiesPerSec: perSecond(entities),
    entityLoadMs: Math.round(entities.ms),
    relations: relations.done,
    relationsPerSec: perSecond(relations),
    relationLoadMs: Math.round(relations.ms),
    batchEngineMs: summarize([...entities.engine, ...relations.engine]),
    entityEngineMs: summarize(entities.engine),
    relationEngineMs: summarize(relations.engine),
    aborted: entities.aborted || relations.aborted,
  };
}

/**
 * Runs the calls of every kind one at a time, interleaved: the first call of
 * each kind in turn, then the second, and so on, after `warmup` untimed calls
 * of each. Each call returns {ms, engineMs?, entities?}. A kind stops early
 * once its calls have taken `budgetMs` and at least `minCalls` ran; the other
 * kinds go on. Returns each kind's summary (see `summary`).
 */
export async function measureInterleaved(kinds, { budgetMs, minCalls = 20, warmup = 3, afterWarmup, afterRound }) {
  const entries = Object.entries(kinds);
  for (let i = 0; i < warmup; i++) for (const [, calls] of entries) if (i < calls.length) await calls[i]();
  await afterWarmup?.();
  const state = Object.fromEntries(entries.map(([kind]) => [kind, { samples: [], spent: 0, stopped: false }]));
  const longest = Math.max(0, ...entries.map(([, calls]) => calls.length));
  for (let i = 0; i < longest; i++) {
    for (const [kind, calls] of entries) {
      const st = state[kind];
      if (st.stopped || i >= calls.length) continue;
      const t0 = performance.now();
      st.samples.push(await calls[i]());
      st.spent += performance.now() - t0;
      if (st.samples.length >= minCalls && st.samples.length < calls.length && st.spent > budgetMs) st.stopped = true;
    }
    await afterRound?.();
  }
  return Object.fromEntries(entries.map(([kind, calls]) => [kind, summary(state[kind].samples, calls.length, budgetMs)]));
}

/** One kind's samples as the report reads them. */
function summary(samples, planned, budgetMs) {
  const errors = samples.filter((s) => s.error);
  const counts = samples.map((s) => s.entities).filter((n) => n !== undefined);
  const engine = samples.map((s) => s.engineMs).filter((v) => v !== undefined);
  return {
    ran: samples.length,
    planned,
    cut: samples.length < planned ? `ran ${samples.length} of ${planned}: the ${budgetMs / 1000} s budget was spent` : undefined,
    errors: errors.length ? { count: errors.length, first: errors[0].error } : undefined,
    e2e: summarize(samples.map((s) => s.ms)),
    /** Per call, in order (null for an error): lets the report pair calls across servers. */
    samples: samples.map((s) => (s.error ? null : Math.round(s.ms * 1000) / 1000)),
    engine: summarize(engine),
    engineClock: engine.length ? { ...resolution(engine), zeros: engine.filter((v) => v === 0).length } : undefined,
    meanEntities: counts.length ? Math.round((counts.reduce((a, b) => a + b, 0) / counts.length) * 10) / 10 : undefined,
    emptyResults: counts.length ? counts.filter((n) => n === 0).length : undefined,
  };
}

/** A timed query; a tool error is recorded (and left out of the latencies), not fatal. */
const toolCall = (client, name, args, timeoutMs) => async () => {
  const started = performance.now();
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
  const ms = performance.now() - started;
  if (result.isError) return { error: `${result.content?.[0]?.text ?? "(no message)"} for ${JSON.stringify(args)}` };
  const engineMs = result._meta?.[RPC_MS_META];
  return { ms, engineMs: typeof engineMs === "number" ? engineMs : undefined, entities: result.structuredContent?.entities?.length };
};

/** A call timed end to end, for the floors that are not tool calls. */
export const timed = (f) => async () => {
  const t0 = performance.now();
  await f();
  return { ms: performance.now() - t0 };
};

/**
 * The floors' calls against one server, each kind `floorCalls` times: a GET
 * of /health and the trivial call's own POST (engram's `health()` and
 * `postFloor(call)`), an MCP ping, and `trivial`, a cheap tool call, if the
 * server has one.
 */
function floors(target, { floorCalls, timeoutMs, trivial }) {
  const { client } = target;
  const kinds = {};
  const repeat = (f) => Array.from({ length: floorCalls }, () => f);
  if (target.health) kinds.http = repeat(timed(target.health));
  if (target.postFloor && trivial) kinds.httpPost = repeat(timed(() => target.postFloor(trivial)));
  kinds.ping = repeat(timed(() => client.ping({ timeout: timeoutMs })));
  if (trivial) kinds.trivial = repeat(toolCall(client, trivial.name, trivial.args, timeoutMs));
  return kinds;
}

/**
 * Runs every floor `floorWarmup` rounds untimed, so the floors measure a
 * server past its JIT warm-up, as a busy team's is, and not the first
 * seconds of a process that has only just loaded a graph (the smallest
 * size's load is three requests). Searches and open_nodes are not run here:
 * that would warm their own caches for the timed run; they get
 * measureInterleaved's few warm-up calls.
 */
export async function warmFloors(target, plan) {
  const calls = Object.values(floors(target, plan)).map((kind) => kind[0]);
  for (let i = 0; i < (plan.floorWarmup ?? 0); i++) for (const call of calls) await call();
}

/**
 * The floors, the queries and a write against one loaded server, interleaved
 * (see `floors`). The write adds one new observation to the first entity of
 * each open_nodes set (`add_observations`), so reads and writes mix as in a
 * working session; every call's text is new, so none is a no-op duplicate.
 * `plan.afterWarmup` runs between the warm-up and the timed calls,
 * `plan.afterRound` after each round.
 */
export async function queries(target, plan) {
  const { client } = target;
  const { searches, openSets, budgetMs, timeoutMs, afterWarmup, afterRound } = plan;
  const kinds = floors(target, plan);
  kinds.search = searches.map((query) => toolCall(client, "search_nodes", { query }, timeoutMs));
  kinds.open = openSets.map((names) => toolCall(client, "open_nodes", { names }, timeoutMs));
  let written = 0;
  kinds.write = openSets.map(
    (names) => () => toolCall(client, "add_observations", { observations: [{ entityName: names[0], contents: [`timed write ${++written}`] }] }, timeoutMs)(),
  );
  return measureInterleaved(kinds, { budgetMs, afterWarmup, afterRound });
}

/** The kinds of `queries` that are tool calls (the floors' HTTP requests and pings are not). */
const TOOL_KINDS = Object.freeze(["trivial", "search", "open", "write"]);

/**
 * Counts the Registry's calls over a phase from `read()`, which answers
 * GET /api/admin/registry-calls ({calls, since}) or null when the count
 * cannot be read. The first read is the start. The count lives in the
 * Registry's memory and starts again when the platform evicts the object
 * while idle (`since` changes): the new count then adds to what the old one
 * had reached at the previous read. Reading it after every round keeps the
 * object from idling out, so what a restart could hide is at most one round.
 */
export function registryWatch(read) {
  let last = null;
  let calls = 0;
  let restarts = 0;
  let unreadable = false;
  return {
    async read() {
      const now = await read();
      if (now === null) {
        unreadable = true;
        return;
      }
      if (last !== null) {
        if (now.since === last.since) calls += now.calls - last.calls;
        else {
          calls += now.calls;
          restarts++;
        }
      }
      last = now;
    },
    /** The calls counted since the first read, and how many restarts were bridged; null if a read failed or none ran. */
    count: () => (unreadable || last === null ? null : { calls, restarts }),
  };
}

/**
 * Registry calls per 1,000 tool calls over a timed phase: `count` is what
 * registryWatch counted (null: not read), `measured` what `queries` returned.
 * Every Registry call in the phase counts, whatever made it; null when no
 * tool call ran.
 */
export function registryRate(count, measured) {
  const toolCalls = TOOL_KINDS.reduce((n, kind) => n + (measured[kind]?.ran ?? 0), 0);
  if (count === null || toolCalls === 0) return null;
  return { ...count, toolCalls, per1000: Math.round((count.calls / toolCalls) * 10_000) / 10 };
}
