#!/usr/bin/env node
/**
 * UserPromptSubmit: `recall` for the user's prompt, and the items that
 * score at least the threshold as additional context, each with its key,
 * at most RECALL_MAX_CHARS characters. A prompt that matches nothing well
 * (chit-chat) adds nothing. The prompt itself is never changed or blocked.
 *
 * The threshold is ENGRAM_RECALL_MIN_SCORE, else DEFAULT_MIN_SCORE, chosen
 * by measurement: docs/integrations.md#choosing-the-recall-threshold.
 */
import { additionalContext, runHook } from "./lib/hook.mjs";
import { formatRecall, minScoreFromEnv } from "./lib/recall.mjs";

/** Prompts shorter than this (after trimming) are not looked up: "ok", "y". */
const MIN_PROMPT_CHARS = 4;

runHook("UserPromptSubmit", async (input, { client }) => {
  const prompt = typeof input.prompt === "string" ? input.prompt.trim() : "";
  if (prompt.length < MIN_PROMPT_CHARS) return undefined;
  const result = await (await client()).call("recall", { query: prompt.slice(0, 2000), budgetTokens: 2000 });
  const text = formatRecall(result.structuredContent, prompt, minScoreFromEnv());
  return text ? additionalContext("UserPromptSubmit", text) : undefined;
});
