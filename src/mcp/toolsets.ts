/** Which toolsets a connection lists: the deployment's MEMORY_TOOLSETS, narrowed by `?tools=`. */
import { TOOLSETS, type Toolset } from "./tool";

export type ToolsetChoice = { ok: true; toolsets: Set<Toolset> } | { ok: false; message: string };

function parse(text: string, source: string): ToolsetChoice {
  const names = text
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (names.length === 0 || names.includes("all")) return { ok: true, toolsets: new Set(TOOLSETS) };
  const unknown = names.filter((n) => !(TOOLSETS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    return { ok: false, message: `${source}: unknown toolset ${unknown.join(", ")}; known: ${TOOLSETS.join(", ")}, all` };
  }
  return { ok: true, toolsets: new Set(names as Toolset[]) };
}

export function chooseToolsets(deployment: string | undefined, requested: string | null): ToolsetChoice {
  const base = parse(deployment ?? "all", "MEMORY_TOOLSETS");
  if (!base.ok || requested === null) return base;
  const asked = parse(requested, "tools");
  if (!asked.ok) return asked;
  return { ok: true, toolsets: new Set([...asked.toolsets].filter((t) => base.toolsets.has(t))) };
}
