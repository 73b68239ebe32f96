/**
 * Who consents on the OAuth authorization page, and what they may grant
 * (the page itself: src/ui/consent.tsx).
 *
 * - With ADMIN_TOKEN set, the person pastes an API token or the ADMIN_TOKEN;
 *   the grant can carry at most that token's grants. In open local mode no
 *   token is asked: the local administrator consents.
 * - The grants of an OAuth grant are the consenting token's, or fewer: a
 *   grant may be left out, its role lowered, or its glob replaced by one
 *   context name the glob matches. Nothing else is accepted, so consent can
 *   narrow and never widen.
 */
import { valueOrThrow } from "../errors";
import { registryOf } from "../registry/Registry";
import type { Caller } from "./caller";
import { globMatches, type Grant, ROLES, type Role } from "./grants";
import { bearerCaller, LOCAL, openLocalMode } from "./index";
import { TOKEN_SHAPE, tokenHash } from "./tokens";
import { CONTEXT_NAME_PATTERN, INVALID_CONTEXT_NAME } from "../limits";

/** Who gave consent: the provider's user id, the consenting token (if any), its name and grants. */
export interface Consenter {
  userId: string;
  tokenId: string | null;
  name: string;
  grants: readonly Grant[];
}

const consenterOf = (c: Caller): Consenter => ({ userId: c.tokenId ?? c.kind, tokenId: c.tokenId ?? null, name: c.id, grants: c.grants });

/** The local administrator, when no token is asked for (open local mode); else undefined. */
export const localConsenter = (env: Env): Consenter | undefined => (openLocalMode(env) ? consenterOf(LOCAL) : undefined);

/**
 * The consenter a pasted token stands for, or undefined. The ADMIN_TOKEN is
 * compared in constant time; an API token is looked up by its hash in the
 * Registry itself (never the isolate's cache), so a token revoked a moment
 * ago cannot consent.
 */
export async function consenterOfToken(env: Env, token: string): Promise<Consenter | undefined> {
  const local = localConsenter(env);
  if (local) return local;
  const trimmed = token.trim();
  if (!trimmed) return undefined;
  if (TOKEN_SHAPE.test(trimmed)) {
    const t = valueOrThrow(await registryOf(env).lookupToken(await tokenHash(trimmed)));
    if (!t) return undefined;
    return { userId: t.id, tokenId: t.id, name: t.name, grants: t.grants };
  }
  const caller = await bearerCaller(trimmed, env);
  return caller ? consenterOf(caller) : undefined;
}

/** One row of the form: whether it is kept, and the context and role asked for. */
export interface GrantChoice {
  keep: boolean;
  context: string;
  role: string;
}

const rank = (role: Role) => ROLES.indexOf(role);

/** What the page repeats of a typed context: enough to recognise it, not a 50,000-character echo. */
const shown = (context: string) => (context.length > 80 ? `${context.slice(0, 80)}…` : context);

/**
 * The grants `choices` ask for, each checked against the consenter's grant
 * at the same position: the same context pattern or one name it matches, a
 * role no higher. The result, or the message saying what was refused.
 */
export function narrowGrants(held: readonly Grant[], choices: readonly GrantChoice[]): { ok: true; grants: Grant[] } | { ok: false; message: string } {
  const grants: Grant[] = [];
  for (const [i, g] of held.entries()) {
    const choice = choices[i];
    if (!choice?.keep) continue;
    const context = choice.context.trim() || g.context;
    const role = choice.role as Role;
    if (!ROLES.includes(role) || rank(role) > rank(g.role)) {
      return { ok: false, message: `The role for ${JSON.stringify(g.context)} can be at most ${g.role}.` };
    }
    if (context !== g.context && (context.includes("*") || !globMatches(g.context, context))) {
      return {
        ok: false,
        message: `${JSON.stringify(shown(context))} is not within ${JSON.stringify(g.context)}: give that pattern or one context name it matches.`,
      };
    }
    // A glob matches far more than context names (`team-*` matches "team-a,secret"): the narrowed one must be a name.
    if (context !== g.context && !CONTEXT_NAME_PATTERN.test(context)) {
      return { ok: false, message: `${JSON.stringify(shown(context))} is not a context name: ${INVALID_CONTEXT_NAME}` };
    }
    const create = (g.create === true || g.role === "admin") && role !== "read";
    grants.push({ context, role, ...(create ? { create: true } : {}) });
  }
  if (grants.length === 0) return { ok: false, message: "Keep at least one grant, or press Deny." };
  return { ok: true, grants };
}
