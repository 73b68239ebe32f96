#!/usr/bin/env node
/**
 * SessionStart (startup, resume, clear, compact): the context's brief
 * (the brief prompt, as memory://brief: marked important, then most used,
 * then most recent) within BRIEF_TOKENS tokens, as additional context of at
 * most BRIEF_MAX_CHARS characters.
 */
import { additionalContext, clipText, runHook } from "./lib/hook.mjs";

const BRIEF_MAX_CHARS = 12_000;
/** The brief prompt's largest budget: about 3,000 tokens of the context's memory at every start. */
const BRIEF_TOKENS = "3000";

runHook("SessionStart", async (_input, { client }) => {
  const brief = (await (await client()).prompt("brief", { budgetTokens: BRIEF_TOKENS })).trim();
  if (brief === "") return undefined;
  const text = `${clipText(brief, BRIEF_MAX_CHARS - 200)}\n\n(From engram, the team's memory. Recall more with the recall tool; store decisions and facts as you go.)`;
  return additionalContext("SessionStart", text);
});
