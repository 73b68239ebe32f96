/**
 * Deployment settings from wrangler vars, validated once per isolate.
 * A bad value is a clear startup error naming the variable, never a NaN
 * that silently skews behaviour. Every setting, its default and its range is
 * listed in the README's Settings table.
 */
import { z } from "zod";
import { SEARCH_RANGES } from "./search/options";

/** A numeric var: wrangler vars arrive as strings (or numbers in wrangler.toml). */
const num = (fallback: number, schema: z.ZodNumber) =>
  z
    .union([z.string(), z.number()])
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return fallback;
      const n = typeof v === "number" ? v : Number(v.trim());
      const parsed = schema.safeParse(n);
      if (!parsed.success) {
        ctx.addIssue({ code: "custom", message: `${JSON.stringify(v)}: ${parsed.error.issues[0]?.message ?? "invalid"}` });
        return z.NEVER;
      }
      return parsed.data;
    });

/** A number within [min, max], with a message naming the range. */
const ranged = (schema: z.ZodNumber, r: { min: number; max: number }) => {
  const message = `must be a number from ${r.min} to ${r.max}`;
  return schema.min(r.min, message).max(r.max, message);
};

export const SettingsSchema = z.object({
  MEMORY_TOOLSETS: z.string().optional().default("all"),
  // Search (src/search/): see the README's Search section.
  SEARCH_MIN_RELATIVE_SCORE: num(0.3, ranged(z.number(), SEARCH_RANGES.minRelativeScore)),
  SEARCH_TOP_PER_TOKEN: num(1, ranged(z.number().int("must be a whole number"), SEARCH_RANGES.topPerToken)),
  SEARCH_MAX_PATH_LENGTH: num(5, ranged(z.number().int("must be a whole number"), SEARCH_RANGES.maxPathLength)),
  SEARCH_MAX_TOTAL_NODES: num(50, ranged(z.number().int("must be a whole number"), SEARCH_RANGES.maxTotalNodes)),
});

export type Settings = z.infer<typeof SettingsSchema>;

export class SettingsError extends Error {
  override name = "SettingsError";
}

const cache = new WeakMap<object, Settings>();

/** The validated settings for `env`; throws SettingsError naming each bad variable. */
export function settings(env: Env): Settings {
  const hit = cache.get(env);
  if (hit) return hit;
  const parsed = SettingsSchema.safeParse(env);
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new SettingsError(`Invalid settings in wrangler vars: ${detail}`);
  }
  cache.set(env, parsed.data);
  return parsed.data;
}

// Exported for settings added by feature modules: `num(default, z.number().int().min(1))`.
export { num };
