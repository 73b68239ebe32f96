/**
 * Which toolsets a connection lists: the deployment's MEMORY_TOOLSETS,
 * narrowed by `?tools=`. Every name must be a toolset that holds tools (or
 * `all`), and the choice must leave at least one tool: anything else is
 * refused with the valid names, never answered with an empty tools/list.
 */
import { TOOLSETS, type Toolset } from "./tool";

export type ToolsetChoice = { ok: true; toolsets: Set<Toolset> } | { ok: false; message: string };

const valid = (sets: Iterable<Toolset>) => `valid toolsets: ${[...sets].join(", ")}, or all`;

function parse(text: string, source: string): ToolsetChoice {
  const names = text
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0) return { ok: false, message: `${source} names no toolset; ${valid(TOOLSETS)}.` };
  if (names.includes("all")) return { ok: true, toolsets: new Set(TOOLSETS) };
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    return { ok: false, message: `${source}: unknown toolset ${unknown.map((n) => JSON.stringify(n)).join(", ")}; ${valid(TOOLSETS)}.` };
  }
  return { ok: true, toolsets: new Set(names as Toolset[]) };
}

export function chooseToolsets(deployment: string | undefined, requested: string | null): ToolsetChoice {
  const base = parse(deployment ?? "all", "MEMORY_TOOLSETS");
  if (!base.ok || requested === null) return base;
  const asked = parse(requested, "tools");
  if (!asked.ok) return asked;
  const toolsets = new Set([...asked.toolsets].filter((t) => base.toolsets.has(t)));
  if (toolsets.size === 0) {
    return { ok: false, message: `tools: ${[...asked.toolsets].join(", ")} not served by this deployment (MEMORY_TOOLSETS); ${valid(base.toolsets)}.` };
  }
  return { ok: true, toolsets };
}
