/**
 * MEMORY_CATEGORY_WEIGHTS: the deployment's category weights, as
 * `personal=2,technical=1.8` (any subset; the rest keep their defaults from
 * ./model.ts). Parsed once when the settings are validated (src/settings.ts),
 * so a typo is a startup error naming the pair, never a silent default.
 */
import { CATEGORIES, isCategory, type Category } from "../items";
import { DEFAULT_CATEGORY_WEIGHTS, type ModelOptions } from "./model";

/** A weight is a positive number up to this: a larger one would let a category swamp every other factor. */
const MAX_CATEGORY_WEIGHT = 10;

export type WeightsParse = { ok: true; weights: Record<Category, number> } | { ok: false; message: string };

export function parseCategoryWeights(text: string | undefined): WeightsParse {
  const weights: Record<Category, number> = { ...DEFAULT_CATEGORY_WEIGHTS };
  if (text === undefined || text.trim() === "") return { ok: true, weights };
  const seen = new Set<string>();
  for (const raw of text.split(",")) {
    const pair = raw.trim();
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const name = (eq < 0 ? pair : pair.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? "" : pair.slice(eq + 1).trim();
    if (eq < 0 || value === "") return { ok: false, message: `${JSON.stringify(pair)}: write category=weight, e.g. personal=2` };
    if (!isCategory(name)) return { ok: false, message: `${JSON.stringify(name)} is not a category; known: ${CATEGORIES.join(", ")}` };
    if (seen.has(name)) return { ok: false, message: `${name} is given twice` };
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0 || n > MAX_CATEGORY_WEIGHT) {
      return { ok: false, message: `${name}=${value}: a weight must be a number above 0 and at most ${MAX_CATEGORY_WEIGHT}` };
    }
    seen.add(name);
    weights[name] = n;
  }
  return { ok: true, weights };
}

/** The priority model a deployment's settings give: MEMORY_CATEGORY_WEIGHTS and SEMANTIC_CLUSTER_THRESHOLD. */
export const modelOptions = (s: { MEMORY_CATEGORY_WEIGHTS: Readonly<Record<Category, number>>; SEMANTIC_CLUSTER_THRESHOLD: number }): ModelOptions => ({
  categoryWeights: s.MEMORY_CATEGORY_WEIGHTS,
  clusterThreshold: s.SEMANTIC_CLUSTER_THRESHOLD,
});
