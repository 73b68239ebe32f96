import { env } from "cloudflare:test";

/** The ENGINE_* knobs bench/engine/vitest.config.ts passes on from the shell. */
export const engineVars = env as unknown as Record<string, string | undefined>;
/** A numeric knob, or its fallback. */
export const knob = (name: string, fallback: number) => Number(engineVars[name] ?? fallback);
/** A comma-separated list of sizes (ENGINE_SIZES by default), or its fallback. */
export const sizesFrom = (fallback: string, name = "ENGINE_SIZES") => (engineVars[name] ?? fallback).split(",").map(Number);

/** The engine benches' clock: runs timed between two readings taken after I/O, since the object's clock stands still during synchronous code. */
export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Milliseconds per run of `fn`, over `n` runs between two clock readings taken after I/O. */
export async function timePerRun(n: number, fn: () => void): Promise<number> {
  await tick();
  const t0 = Date.now();
  for (let i = 0; i < n; i++) fn();
  await tick();
  return (Date.now() - t0) / n;
}
