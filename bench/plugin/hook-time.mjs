#!/usr/bin/env node
/**
 * `npm run bench:plugin`: the wall time of the Claude Code plugin's hooks as
 * Claude Code runs them (`sh -c` with the command from hooks/hooks.json, the
 * hook's JSON on stdin), process start included, against a local server
 * seeded with bench/plugin/corpus.mjs. Prints the median, p90 and range over
 * --runs runs per hook; prompts alternate between answering ones and
 * chit-chat.
 *
 *   npm run bench:plugin                      # wrangler dev on loopback, 30 runs per hook
 *   npm run bench:plugin -- --runs 100
 *   npm run bench:plugin -- --url URL         # a running server (ENGRAM_TOKEN for its token)
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { attachEngram, startEngram, stopWithProcess } from "../lib/engram.mjs";
import { CHITCHAT, ENTITIES, RELATIONS, RELEVANT } from "./corpus.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const plugin = path.join(root, "integrations", "claude-code");
const { values: opts } = parseArgs({
  options: { url: { type: "string" }, runs: { type: "string", default: "30" }, context: { type: "string", default: "plugin-hook-time" } },
});
const log = (line) => process.stderr.write(`${line}\n`);
const hooks = JSON.parse(fs.readFileSync(path.join(plugin, "hooks", "hooks.json"), "utf8")).hooks;

/** Milliseconds from spawn to exit of one hook run; throws when it does not exit 0. */
function timeHook(command, input, env) {
  const started = performance.now();
  return new Promise((done, failed) => {
    const child = spawn("sh", ["-c", command], { env, stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => (code === 0 && stderr === "" ? done(performance.now() - started) : failed(new Error(`exit ${code}: ${stderr}`))));
    child.stdin.end(JSON.stringify(input));
  });
}

const engram = opts.url
  ? await attachEngram({ url: opts.url, log })
  : await startEngram({ root, stateDir: path.join(root, "bench", "out", "plugin-hook-time-state"), log });
stopWithProcess(engram, log);
try {
  const client = await engram.connect(opts.context);
  await client.callTool({ name: "create_entities", arguments: { entities: ENTITIES } });
  await client.callTool({ name: "create_relations", arguments: { relations: RELATIONS } });
  const env = {
    ...process.env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
    CLAUDE_PLUGIN_ROOT: plugin,
    CLAUDE_PROJECT_DIR: root,
    ENGRAM_URL: `${engram.base}/mcp/${opts.context}`,
  };
  const runs = Number(opts.runs);
  const prompts = RELEVANT.flatMap((r, i) => [r.prompt, CHITCHAT[i % CHITCHAT.length]]);
  const cases = [
    ["UserPromptSubmit", (i) => ({ hook_event_name: "UserPromptSubmit", session_id: "bench", prompt: prompts[i % prompts.length] })],
    ["SessionStart", () => ({ hook_event_name: "SessionStart", session_id: "bench", source: "startup" })],
  ];
  console.log(`node ${process.version}, ${runs} runs per hook, ${engram.base}`);
  console.log("| hook | median ms | p90 ms | min ms | max ms |");
  console.log("|---|---|---|---|---|");
  for (const [event, input] of cases) {
    const command = hooks[event][0].hooks[0].command;
    await timeHook(command, input(0), env); // warm the server's isolate and the OS file cache
    const times = [];
    for (let i = 0; i < runs; i++) times.push(await timeHook(command, input(i), env));
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
    console.log(`| ${event} | ${at(0.5).toFixed(0)} | ${at(0.9).toFixed(0)} | ${times[0].toFixed(0)} | ${times.at(-1).toFixed(0)} |`);
  }
} finally {
  await engram.stop();
}
