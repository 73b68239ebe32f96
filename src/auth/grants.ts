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
export const GRANT_PATTERN = /^[a-z0-9*][a-z0-9._*-]{0,63}$/;

/** What the administrator and open local mode may do: everything. */
export const ALL: readonly Grant[] = Object.freeze([{ context: "*", role: "admin", create: true }]);

const rank = (role: Role) => ROLES.indexOf(role);

const compiled = new Map<string, RegExp>();

/** Whether the glob `pattern` matches the whole of `name`. */
export function globMatches(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  let re = compiled.get(pattern);
  if (!re) {
    const body = pattern
      .split("*")
      .map((part) => part.replace(/[.\\^$+?()[\]{}|-]/g, "\\$&"))
      .join(".*");
    re = new RegExp(`^${body}$`);
    if (compiled.size > 1000) compiled.clear();
    compiled.set(pattern, re);
  }
  return re.test(name);
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

/** Why a list of grants is unusable, or undefined when it is fine. */
export function grantProblem(grants: readonly Grant[]): string | undefined {
  if (grants.length === 0) return "grants: give at least one grant";
  for (const [i, g] of grants.entries()) {
    if (!GRANT_PATTERN.test(g.context)) {
      return `grants[${i}].context: ${JSON.stringify(g.context)} must be a context name or glob ([a-z0-9*][a-z0-9._*-]{0,63})`;
    }
    if (!ROLES.includes(g.role)) return `grants[${i}].role: must be one of ${ROLES.join(", ")}`;
    if (g.create && g.role === "read") return `grants[${i}]: create needs role write or admin`;
  }
  return undefined;
}
