/**
 * Grants: which contexts a caller may read, write or administer.
 *
 * A grant names a context or a glob over context names (`team-*`, `*`) and a
 * role. Roles are ordered: `read` < `write` < `admin`; when several grants
 * match a name the highest role wins. `create: true` lets the holder bring a
 * matching context into existence on first use (for project contexts such as
 * `proj-*`). The administrator and open local mode hold `ALL`.
 *
 * Pure functions over plain data: the Worker, the Registry and the tests all
 * use them, and a token's grants cross RPC as JSON.
 */
export const ROLES = ["read", "write", "admin"] as const;
export type Role = (typeof ROLES)[number];

export interface Grant {
  /** A context name, or a glob where `*` matches any run of name characters. */
  context: string;
  role: Role;
  /** Whether a missing context matching `context` is created on first use. */
  create?: boolean;
}

/** A grant pattern: context name characters plus `*`. */
const GRANT_PATTERN = /^[a-z0-9*][a-z0-9._*-]{0,63}$/;

/** What the administrator and open local mode may do: everything. */
export const ALL: readonly Grant[] = Object.freeze([{ context: "*", role: "admin", create: true }]);

const rank = (role: Role) => ROLES.indexOf(role);

/**
 * Most `*` one grant may hold. The matcher is fast whatever the count; the cap
 * keeps grants readable and refuses the pathological shapes outright.
 */
export const MAX_GRANT_STARS = 8;

/**
 * Whether the glob `pattern` matches the whole of `name`: `*` matches any run
 * of characters (possibly none), every other character only itself.
 *
 * A two-pointer scan, never a RegExp built from the pattern (a backtracking
 * regex takes seconds to minutes on `*a*a*a*a*a*a*a*b` and
 * `*-*-*-*-*-*-*-*-*-*-prod`). On a mismatch it resumes one character further
 * after the last `*` seen; an earlier `*` never needs revisiting, because the
 * last one can absorb whatever an earlier one would have. So it takes at most
 * |name| × |pattern| steps: linear in the name, as a pattern is at most 64
 * characters, and a single pass for the usual `team-*`.
 */
export function globMatches(pattern: string, name: string): boolean {
  let i = 0; // in name
  let j = 0; // in pattern
  let star = -1; // index in pattern of the last `*` seen
  let resume = 0; // where in name that `*`'s match ends, plus one on each retry
  while (i < name.length) {
    if (j < pattern.length && pattern[j] !== "*" && pattern[j] === name[i]) {
      i++;
      j++;
    } else if (j < pattern.length && pattern[j] === "*") {
      star = j++;
      resume = i;
    } else if (star >= 0) {
      j = star + 1;
      i = ++resume;
    } else {
      return false;
    }
  }
  while (j < pattern.length && pattern[j] === "*") j++;
  return j === pattern.length;
}

/** How many `*` a grant pattern holds. */
const stars = (pattern: string): number => pattern.split("*").length - 1;

/** Why a grant pattern is unusable, or undefined when it is fine (the API's schema and `grantProblem` share it). */
export function patternProblem(pattern: string): string | undefined {
  if (!GRANT_PATTERN.test(pattern)) return "must be a context name or glob ([a-z0-9*][a-z0-9._*-]{0,63})";
  const n = stars(pattern);
  if (n > MAX_GRANT_STARS) return `has ${n} "*"; a grant holds at most ${MAX_GRANT_STARS}`;
  return undefined;
}

/** The highest role any grant gives on `name`, or undefined when none matches. */
export function roleFor(grants: readonly Grant[], name: string): Role | undefined {
  let best: Role | undefined;
  for (const g of grants) {
    if (globMatches(g.context, name) && (best === undefined || rank(g.role) > rank(best))) best = g.role;
  }
  return best;
}

/** Whether a grant lets the caller create `name` when it does not exist yet. */
export function mayCreate(grants: readonly Grant[], name: string): boolean {
  return grants.some((g) => globMatches(g.context, name) && (g.create === true || g.role === "admin"));
}

/** A grant as users type it (`npm run admin -- token create --grant`): `team-*=write`, `proj-*=write+create`. */
const grantText = (g: Grant): string => `${g.context}=${g.role}${g.create ? "+create" : ""}`;

/** The caller's grants for a refusal, the first `max` as users type them: `your grants: a=read, b-*=write and 2 more`. */
export function yourGrants(grants: readonly Grant[], max = 3): string {
  if (grants.length === 0) return "you hold no grants";
  const more = grants.length > max ? ` and ${grants.length - max} more` : "";
  return `your grants: ${grants.slice(0, max).map(grantText).join(", ")}${more}`;
}

/** Why a list of grants is unusable, or undefined when it is fine. */
export function grantProblem(grants: readonly Grant[]): string | undefined {
  if (grants.length === 0) return "grants: give at least one grant";
  for (const [i, g] of grants.entries()) {
    const problem = patternProblem(g.context);
    if (problem) return `grants[${i}].context: ${JSON.stringify(g.context)} ${problem}`;
    if (!ROLES.includes(g.role)) return `grants[${i}].role: must be one of ${ROLES.join(", ")}`;
    if (g.create && g.role === "read") return `grants[${i}]: create needs role write or admin`;
  }
  return undefined;
}
