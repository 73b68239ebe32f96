/**
 * Deployment settings from wrangler vars, validated once per isolate.
 * A bad value is a clear startup error naming the variable, never a NaN
 * that silently skews behaviour. Every setting, its default and its range is
 * quoted in docs/operations.md#settings (the README's Settings table names them).
 */
import { z } from "zod";
// upward: ROOT_TEMPLATE is checked with the documents' own rules for size and links
import { hasLinks, utf8Bytes } from "./documents/links";
import { LIMITS, SEARCH_RANGES } from "./limits";
// upward: the priority model owns SEMANTIC_CLUSTER_THRESHOLD's default and parses MEMORY_CATEGORY_WEIGHTS
import { DEFAULT_MODEL } from "./priority/model";
import { parseCategoryWeights } from "./priority/weights";

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

/** The embedding model a context with the `AI` binding uses unless EMBEDDING_MODEL names another. */
const DEFAULT_EMBEDDING_MODEL = "@cf/baai/bge-small-en-v1.5";

const SettingsSchema = z.object({
  MEMORY_TOOLSETS: z.string().optional().default("all"),
  // Search (src/search/): see docs/search.md#settings.
  SEARCH_MIN_RELATIVE_SCORE: num(0.3, ranged(z.number(), SEARCH_RANGES.minRelativeScore)),
  SEARCH_TOP_PER_TOKEN: num(1, ranged(z.number().int("must be a whole number"), SEARCH_RANGES.topPerToken)),
  SEARCH_MAX_PATH_LENGTH: num(5, ranged(z.number().int("must be a whole number"), SEARCH_RANGES.maxPathLength)),
  SEARCH_MAX_TOTAL_NODES: num(50, ranged(z.number().int("must be a whole number"), SEARCH_RANGES.maxTotalNodes)),
  /** Whether searches also look for the query words' common synonyms, at a lower weight (src/search/expand.ts). */
  SEARCH_EXPANSION: z
    .union([z.boolean(), z.enum(["true", "false"])])
    .optional()
    .transform((v) => v === undefined || v === true || v === "true"),
  /** The Workers AI embedding model, used when the deployment has an `AI` binding (src/search/semantic/). */
  EMBEDDING_MODEL: z
    .string()
    .optional()
    .transform((v) => v?.trim() || DEFAULT_EMBEDDING_MODEL)
    .refine((v) => /^@[\w.-]+\/[\w.-]+\/[\w.-]+$/.test(v), `must be a Workers AI model name such as ${DEFAULT_EMBEDDING_MODEL}`),
  /** How long a Worker isolate trusts an API token lookup: the bound on a revocation taking effect. */
  TOKEN_CACHE_SECONDS: num(30, z.number().int().min(0).max(60)),
  /** Seconds an OAuth access token lives (src/auth/oauth.ts); 60 is the provider's floor (KV's shortest expiry). */
  OAUTH_ACCESS_TOKEN_TTL: num(3600, ranged(z.number().int("must be a whole number"), { min: 60, max: 86_400 })),
  /** History retention per context: keep at most the last this many changes (src/history/retention.ts). */
  HISTORY_MAX_CHANGES: num(10_000, z.number().int().min(1).max(10_000_000)),
  /** History retention per context: drop changes older than this many days. */
  HISTORY_MAX_DAYS: num(30, z.number().min(1).max(3650)),
  /** Changes listed at most under "Changed since your last look" in the brief (src/history/since.ts); the rest are counted. */
  BRIEF_CHANGES_MAX: num(10, z.number().int("must be a whole number").min(1, "must be from 1 to 100").max(100, "must be from 1 to 100")),
  /** Seconds a webhook's receiver has to answer one delivery (src/context/webhooks.ts). */
  WEBHOOK_TIMEOUT_SECONDS: num(10, z.number().int("must be a whole number").min(1, "must be from 1 to 60").max(60, "must be from 1 to 60")),
  /** Hours of failed deliveries after which a webhook is marked failing and stops (src/history/webhooks.ts). */
  WEBHOOK_GIVE_UP_HOURS: num(24, z.number().min(1, "must be from 1 to 168").max(168, "must be from 1 to 168")),
  /** Content of a context's root document when it is first created. */
  ROOT_TEMPLATE: z
    .string()
    .optional()
    .default("# メモ帳\n")
    .refine((t) => utf8Bytes(t) <= LIMITS.documentBytes, `must be at most ${LIMITS.documentBytes} bytes`)
    // A link would name a child that does not exist; children are made only by update_document.
    .refine((t) => !hasLinks(t), "must not contain [[links]]"),
  /** How many links below the root a document may be. */
  DOCUMENT_MAX_DEPTH: num(16, z.number().int().min(1).max(100)),
  /** Minutes without an access after which a session without a key ends (src/covisit/session.ts). */
  COVIS_SESSION_IDLE_MINUTES: num(
    30,
    z
      .number()
      .int()
      .min(1)
      .max(7 * 24 * 60),
  ),
  /** Related items shown after a view or open_nodes; 0 turns the block off. */
  MEMORY_COVIS_MAX_RECOMMENDATIONS: num(3, z.number().int().min(0).max(20)),
  // Priority (src/priority/): see docs/priority.md.
  /** Minutes between capacity evaluations of a context that has a capacity. */
  MEMORY_EVALUATION_MINUTES: num(
    10,
    z
      .number()
      .int("must be a whole number")
      .min(1, "must be at least 1")
      .max(7 * 24 * 60, "must be at most 10080"),
  ),
  /** Items below this priority are the ones pruned when a capacity limit is near. */
  PROMOTION_THRESHOLD: num(0.2, z.number().min(0, "must be from 0 to 10").max(10, "must be from 0 to 10")),
  /** Related items (relations and co-visitation) that make a cluster: the cluster bonus and promotion to long term. */
  SEMANTIC_CLUSTER_THRESHOLD: num(
    DEFAULT_MODEL.clusterThreshold,
    z.number().int("must be a whole number").min(1, "must be from 1 to 1000").max(1000, "must be from 1 to 1000"),
  ),
  /**
   * Browser origins allowed besides the server's own (src/auth/origin.ts), comma-separated:
   * each an http(s) scheme, host and optional port, no path. Kept serialized as browsers send them.
   */
  ALLOWED_ORIGINS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const origins: string[] = [];
      for (const entry of (v ?? "").split(",").map((s) => s.trim())) {
        if (entry === "") continue;
        const origin = exactOrigin(entry);
        if (origin === undefined) {
          ctx.addIssue({ code: "custom", message: `${JSON.stringify(entry)} is not an origin; give scheme, host and optional port, e.g. https://app.example.com` });
          return z.NEVER;
        }
        origins.push(origin);
      }
      return origins;
    }),
  /** Priority category weights, "personal=2,technical=1.8" (src/priority/weights.ts); unnamed categories keep their defaults. */
  MEMORY_CATEGORY_WEIGHTS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const parsed = parseCategoryWeights(v);
      if (parsed.ok) return parsed.weights;
      ctx.addIssue({ code: "custom", message: parsed.message });
      return z.NEVER;
    }),
});

/** `text` as a serialized http(s) origin, or undefined when it is not one (a path, query or credentials included). */
function exactOrigin(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") return undefined;
  if (!/^https?:\/\/[^/]+\/?$/i.test(text)) return undefined;
  return url.origin;
}

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
