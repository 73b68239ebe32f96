#!/usr/bin/env node
/**
 * `npm run bench:plugin-threshold`: how the Claude Code plugin's recall
 * threshold (DEFAULT_MIN_SCORE in integrations/claude-code/scripts/lib/recall.mjs)
 * was chosen. It seeds a context with a project's memory
 * (bench/plugin/corpus.mjs), runs `recall` as the UserPromptSubmit hook does
 * for prompts the memory answers and for chit-chat, and prints, per score
 * cut, how many answering prompts still get their item and how many
 * chit-chat prompts would get anything.
 *
 *   npm run bench:plugin-threshold                 # wrangler dev on loopback, open local mode
 *   npm run bench:plugin-threshold -- --url URL    # a running server (ENGRAM_TOKEN for its token)
 *   npm run bench:plugin-threshold -- --filler 2000  # the same among 2,000 generated entities (bench/lib/generate.mjs)
 *
 * Each recall is an access that raises the items' priority a little, which
 * moves later scores; accesses are written before the next prompt (an
 * untimed memory_stats), so two runs print the same numbers.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { attachEngram, startEngram, stopWithProcess } from "../lib/engram.mjs";
import { generateGraph } from "../lib/generate.mjs";
import { relevantItems } from "../../integrations/claude-code/scripts/lib/recall.mjs";
import { CHITCHAT, ENTITIES, RELATIONS, RELEVANT } from "./corpus.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: opts } = parseArgs({
  options: { url: { type: "string" }, context: { type: "string", default: "plugin-threshold" }, filler: { type: "string", default: "0" } },
});
const log = (line) => process.stderr.write(`${line}\n`);

/** The hook's own call: recall with the prompt and a 2,000-token budget. */
const HOOK_BUDGET = 2000;

const engram = opts.url
  ? await attachEngram({ url: opts.url, log })
  : await startEngram({ root, stateDir: path.join(root, "bench", "out", "plugin-threshold-state"), log });
stopWithProcess(engram, log);
try {
  const client = await engram.connect(opts.context);
  await client.callTool({ name: "create_entities", arguments: { entities: ENTITIES } });
  await client.callTool({ name: "create_relations", arguments: { relations: RELATIONS } });
  // A bigger memory moves BM25 scores (rarer terms weigh more): the cut should hold there too.
  const filler = generateGraph(Number(opts.filler), 7).entities;
  for (let i = 0; i < filler.length; i += 500) await client.callTool({ name: "create_entities", arguments: { entities: filler.slice(i, i + 500) } });
  const recall = async (prompt) => {
    const result = await client.callTool({ name: "recall", arguments: { query: prompt, budgetTokens: HOOK_BUDGET } });
    await client.callTool({ name: "memory_stats", arguments: {} });
    return result.structuredContent.items.filter((item) => item.via === undefined);
  };

  const relevant = [];
  for (const { prompt, key } of RELEVANT) {
    const items = await recall(prompt);
    const hit = items.find((item) => item.key === key);
    relevant.push({ prompt, key, score: hit?.score ?? 0, rank: hit ? items.indexOf(hit) + 1 : 0, top: items[0]?.score ?? 0, items });
  }
  const chitchat = [];
  for (const prompt of CHITCHAT) {
    const items = await recall(prompt);
    chitchat.push({ prompt, top: items[0]?.score ?? 0, topKey: items[0]?.key ?? "-", items });
  }

  const f = (x) => x.toFixed(2);
  console.log("\nPrompts the memory answers (score of the answering item, its rank among direct matches, the top score):");
  for (const r of relevant) console.log(`  ${f(r.score).padStart(6)}  #${String(r.rank).padEnd(2)}  top ${f(r.top).padStart(6)}  ${r.prompt}`);
  console.log("\nChit-chat (top score and its item):");
  for (const c of chitchat) console.log(`  ${f(c.top).padStart(6)}  ${c.prompt}  ->  ${c.topKey}`);

  const cuts = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12];
  // The hook's filter at each cut, with its word test, beside the score alone.
  const passing = (items, prompt, cut, words) => (words ? relevantItems({ items }, prompt, cut) : items.filter((i) => i.score >= cut));
  console.log(
    "\n| cut | answering prompts that get their item: score and words / score alone | chit-chat prompts that get anything: score and words / score alone | items per answering prompt, median: score and words / score alone |",
  );
  console.log("|---|---|---|---|");
  for (const cut of cuts) {
    const row = [true, false].map((w) => {
      const kept = relevant.filter((r) => passing(r.items, r.prompt, cut, w).some((i) => i.key === r.key)).length;
      const noisy = chitchat.filter((c) => passing(c.items, c.prompt, cut, w).length > 0).length;
      const counts = relevant.map((r) => passing(r.items, r.prompt, cut, w).length).sort((a, b) => a - b);
      return { kept, noisy, median: counts[Math.floor(counts.length / 2)] };
    });
    const [a, b] = row;
    console.log(`| ${cut} | ${a.kept} / ${b.kept} of ${relevant.length} | ${a.noisy} / ${b.noisy} of ${chitchat.length} | ${a.median} / ${b.median} |`);
  }
  const missed = relevant.filter((r) => !relevantItems({ items: r.items }, r.prompt, 0).some((i) => i.key === r.key));
  console.log(`\nanswering prompts whose item fails the word test: ${missed.map((r) => `"${r.prompt}" (${r.key})`).join("; ") || "none"}`);
  const leaks = chitchat.filter((c) => relevantItems({ items: c.items }, c.prompt, 0).length > 0);
  console.log(
    `\nchit-chat that passes the word test at any score: ${leaks.map((c) => `"${c.prompt}" -> ${relevantItems({ items: c.items }, c.prompt, 0)[0].key}`).join("; ") || "none"}`,
  );
  const maxChat = Math.max(...chitchat.map((c) => c.top));
  const answered = relevant.map((r) => r.score).filter((s) => s > 0);
  console.log(
    `\nhighest chit-chat score ${f(maxChat)}; answering items score ${f(Math.min(...answered))} to ${f(Math.max(...answered))} (median ${f(answered.sort((a, b) => a - b)[Math.floor(answered.length / 2)])}); ${relevant.length - answered.length} answering prompt(s) found nothing`,
  );
} finally {
  await engram.stop();
}
