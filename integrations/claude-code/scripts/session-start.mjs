#!/usr/bin/env node
/**
 * SessionStart (startup, resume, clear, compact): the context's brief
 * (memory://brief: marked important, then most used, then most recent) as
 * additional context, at most BRIEF_MAX_CHARS characters.
 */
import { additionalContext, clipText, runHook } from "./lib/hook.mjs";

const BRIEF_MAX_CHARS = 12_000;

runHook("SessionStart", async (_input, { client }) => {
  const brief = (await (await client()).read("memory://brief")).trim();
  if (brief === "") return undefined;
  const text = `${clipText(brief, BRIEF_MAX_CHARS - 200)}\n\n(From engram, the team's memory. Recall more with the recall tool; store decisions and facts as you go.)`;
  return additionalContext("SessionStart", text);
});
