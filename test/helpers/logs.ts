/**
 * The Worker and the objects log one JSON object per line through console
 * (src/mcp/http.ts, src/context/runner.ts, src/index.ts). A test that drives
 * an error path on purpose captures those lines and checks them, so a
 * passing run prints no error it expected.
 */
import { vi } from "vitest";

export type Level = "error" | "warn" | "info" | "log";

export interface Logged {
  level: Level;
  line: Record<string, unknown>;
}

const LEVELS: readonly Level[] = ["error", "warn", "info", "log"];

/** A structured line as its object; anything else as `{ text }`, so an unexpected line still shows in a failed assertion. */
function parsed(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not a structured line
  }
  return { text };
}

/** Runs `fn` with console captured (the objects share the test's isolate, so their lines are caught too): its value and what it logged, in order. */
export async function withLogs<T>(fn: () => Promise<T>): Promise<{ value: T; logged: Logged[] }> {
  const logged: Logged[] = [];
  const spies = LEVELS.map((level) =>
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push({ level, line: parsed(args.map(String).join(" ")) });
    }),
  );
  try {
    return { value: await fn(), logged };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** The lines logged at `level`. */
export const at = (logged: readonly Logged[], level: Level) => logged.filter((l) => l.level === level).map((l) => l.line);
