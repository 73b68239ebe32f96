/**
 * Registry: the deployment's one SQLite-backed Durable Object for who may do
 * what (`env.REGISTRY.getByName("registry")`). It owns API tokens (hashes
 * only), OAuth grants (./oauth.ts), the list of memory contexts and their flags, each caller's active
 * context, and the admin audit log. It stores and answers; deciding whether a
 * caller is allowed is the Worker's job (src/auth/grants.ts), done before any
 * call that changes something here.
 *
 * ## Lifecycle
 * Migrations from migrations/registry/ run in `blockConcurrencyWhile` in the
 * constructor, like a MemoryContext's.
 *
 * ## Concurrency and atomicity
 * Every change is one `transactionSync`; a change and its audit entry commit
 * together (a purge, around its object's wipe, is two).
 *
 * ## Failures
 * Every RPC method returns an `Outcome`, as a context's runner does
 * (src/context/runner.ts): a domain failure with its kind and message; anything
 * else thrown (a SQL fault, a bug, a failed push or wipe) is logged here once as
 * an `internal_error` line with a reference and comes back as an `Internal`
 * failure carrying only that reference. No method throws across RPC.
 *
 * ## Pushes to the contexts' objects
 * A context's object checks its own writes (src/context/registration.ts), so
 * every change here that binds writes is pushed to it in the same method: a
 * removal or a read-only flag before it is recorded (a failed push changes
 * nothing here), a registration after (a write's first lookup in an isolate
 * pushes it again, so an object left refusing heals). The steps for one name
 * run one after another (`serially`), so two pushes never cross.
 *
 * ## Count
 * `callCount()` says how many calls this object served since it started
 * (each once, however many steps it took): test/registry/hot-path.test.ts checks
 * that warm tool calls make none. It is kept in memory, so it starts again
 * when the platform evicts the object (idle, its calls being rare);
 * `callStats()` says since when.
 */
import { DurableObject } from "cloudflare:workers";
import { capture, describeThrown, DomainError, errorRef, fail, internalFailure, type InternalFailure, ok, type Outcome } from "../errors";
// same level: the push a context's object understands (type only)
import type { RegistrationPush } from "../context/registration";
import { DEFAULT_CONTEXT } from "../limits";
// upward: the Registry stores grants in the shape auth defines and checks (type only)
import type { Grant } from "../auth/grants";
import { migrate } from "../storage/migrations";
import { Db } from "../storage/sql";
import { record, readAudit } from "./audit";
import * as contexts from "./contexts";
import { REGISTRY_MIGRATIONS } from "./migrations";
import * as oauth from "./oauth";
import * as tokens from "./tokens";
import type {
  ActiveContext,
  AuditEntry,
  ContextInfo,
  ContextPatch,
  NewContext,
  NewOAuthGrant,
  OAuthGrantInfo,
  OAuthPrincipal,
  RefreshVerdict,
  TokenInfo,
  TokenPrincipal,
} from "./types";

/** The name of the deployment's one Registry object. */
const REGISTRY_NAME = "registry";

export const registryOf = (env: Env) => env.REGISTRY.getByName(REGISTRY_NAME);

export class Registry extends DurableObject<Env> {
  private readonly db: Db;
  /** The object's clock. Tests replace it (through runInDurableObject) instead of sleeping. */
  now: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.db = new Db(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      migrate(this.db, (fn) => ctx.storage.transactionSync(fn), REGISTRY_MIGRATIONS);
    });
  }

  private served = 0;
  /** The tail of each name's running steps (see `serially`). */
  private readonly steps = new Map<string, Promise<unknown>>();

  /** One transaction; each call served counts once (`counted` false: a further step of the same call). */
  private tx<T>(fn: (db: Db, now: number) => T, counted = true): Outcome<T> {
    if (counted) this.served++;
    try {
      return capture(() => this.ctx.storage.transactionSync(() => fn(this.db, this.now())));
    } catch (error) {
      return internal("registry", error);
    }
  }

  /** The calls this object served since it started (not counting this one). */
  callCount(): number {
    return this.served;
  }

  /** When this instance started (ms): the count starts again at 0 whenever the platform evicts an idle object. */
  private readonly startedAt = Date.now();

  /** callCount with the start it counts from (not counted either). */
  callStats(): { calls: number; since: number } {
    return { calls: this.served, since: this.startedAt };
  }

  /** Runs `fn` after every earlier step for `name` finished, so a lookup's push and a removal's never interleave. */
  private async serially<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.steps.get(name) ?? Promise.resolve()).then(fn, fn);
    const tail = run.catch(() => undefined);
    this.steps.set(name, tail);
    try {
      return await run;
    } finally {
      if (this.steps.get(name) === tail) this.steps.delete(name);
    }
  }

  /** Tells the context's object a registration fact; an error is logged here and comes back as a reference. */
  private async push(p: RegistrationPush): Promise<Outcome<void>> {
    try {
      const told = await this.env.MEMORY.getByName(p.name).setRegistration(p);
      return told.ok ? ok(undefined) : told;
    } catch (error) {
      return internal("registry.push", error, p.name);
    }
  }

  /** Runs `change`, then pushes the registration it left (when it succeeded). */
  private async thenRegistered<T extends ContextInfo>(name: string, change: () => Outcome<T>): Promise<Outcome<T>> {
    const done = change();
    if (!done.ok) return done;
    const pushed = await this.push({ name, status: "registered", readOnly: done.value.readOnly });
    return pushed.ok ? done : pushed;
  }

  // ---- tokens

  /** The live token whose SHA-256 is `hash`, or null; records the use. */
  lookupToken(hash: string): Outcome<TokenPrincipal | null> {
    return this.tx((db, now) => {
      const t = tokens.useToken(db, hash, now);
      return t ? { id: t.id, name: t.name, grants: t.grants } : null;
    });
  }

  createToken(t: { id: string; name: string; hash: string; grants: Grant[] }, actor: string): Outcome<TokenInfo> {
    return this.tx((db, now) => {
      const created = tokens.insertToken(db, t, now);
      record(db, now, actor, "token.create", t.name, { id: t.id, grants: t.grants });
      return created;
    });
  }

  listTokens(includeRevoked: boolean): Outcome<TokenInfo[]> {
    return this.tx((db) => tokens.listTokens(db, includeRevoked));
  }

  /**
   * Revokes the token `ref` names (src/registry/tokens.ts: by id, by live name, or told apart by the id prefix)
   * and, in the same transaction, every OAuth grant it consented to; those come back in `oauthGrants`, so the
   * Worker can delete their tokens from the OAuth provider's store too.
   */
  revokeToken(ref: string, actor: string, by?: tokens.TokenRefKind): Outcome<TokenInfo & { oauthGrants: OAuthGrantInfo[] }> {
    return this.tx((db, now) => {
      const t = tokens.revokeToken(db, ref, now, by);
      if (t.revokedAt === now) record(db, now, actor, "token.revoke", t.name, { id: t.id });
      const ended = oauth.revokeOAuthGrantsOfToken(db, t.id, now);
      for (const g of ended) record(db, now, actor, "oauth.revoke", g.clientName, { id: g.id, via: "token revoked", token: t.id });
      return { ...t, oauthGrants: ended };
    });
  }

  // ---- OAuth grants (src/registry/oauth.ts)

  /** Records a consent; the user's earlier grant to the same client comes back in `replaced` (the provider ended it). */
  recordOAuthGrant(g: NewOAuthGrant, actor: string): Outcome<{ grant: OAuthGrantInfo; replaced: OAuthGrantInfo[] }> {
    return this.tx((db, now) => {
      const done = oauth.insertOAuthGrant(db, g, now);
      record(db, now, actor, "oauth.grant", g.clientName, { id: g.id, client: g.clientId, grants: g.grants });
      return done;
    });
  }

  /** The live OAuth grant `id` whose consenting token is live, or null; records the use. */
  useOAuthGrant(id: string): Outcome<OAuthPrincipal | null> {
    return this.tx((db, now) => oauth.useOAuthGrant(db, id, now) ?? null);
  }

  listOAuthGrants(includeRevoked: boolean, userId?: string): Outcome<OAuthGrantInfo[]> {
    return this.tx((db) => oauth.listOAuthGrants(db, includeRevoked, userId));
  }

  /** Revokes OAuth grant `id`; `userId`, when given, must own it (a teammate revoking their own). */
  revokeOAuthGrant(id: string, actor: string, userId?: string): Outcome<OAuthGrantInfo> {
    return this.tx((db, now) => {
      const found = oauth.findOAuthGrant(db, id);
      if (!found || (userId !== undefined && found.userId !== userId)) {
        throw new DomainError("NotFound", `You have no OAuth grant with the id ${JSON.stringify(id)}. GET /api/oauth/grants lists yours.`);
      }
      const g = oauth.revokeOAuthGrant(db, id, now);
      if (g.revokedAt === now) record(db, now, actor, "oauth.revoke", g.clientName, { id: g.id });
      return g;
    });
  }

  /**
   * Records a refresh (or code exchange, without `presented`) the OAuth provider has just answered with new tokens
   * (src/registry/oauth.ts): whether they may stand; reuse of a rotated-out token ends the grant instead.
   */
  rotateRefreshToken(t: { providerId: string; userId: string; presented?: string; issued: string }): Outcome<RefreshVerdict> {
    return this.tx((db, now) => {
      const verdict = oauth.rotateRefreshToken(db, t, now);
      if (verdict.reused && verdict.grant) record(db, now, "oauth", "oauth.revoke", verdict.grant, { id: verdict.grant, via: oauth.OAUTH_END_REASONS.reused });
      return verdict;
    });
  }

  /** A refresh the provider refused: reuse of a rotated-out token ends the grant, whose id comes back. */
  refusedRefreshToken(t: { providerId: string; userId: string; presented: string }): Outcome<string | null> {
    return this.tx((db, now) => {
      const ended = oauth.refusedRefreshToken(db, t, now);
      if (ended) record(db, now, "oauth", "oauth.revoke", ended, { id: ended, via: oauth.OAUTH_END_REASONS.reused });
      return ended ?? null;
    });
  }

  /**
   * Ends a live grant for `reason`, found by the Registry's id or by the provider's (`provider`): a grant the
   * provider ended itself, or one whose ADMIN_TOKEN changed. Returns it, or null when none was live.
   */
  endOAuthGrant(ref: { id: string } | { providerId: string; userId: string }, reason: oauth.OAuthEndReason): Outcome<OAuthGrantInfo | null> {
    return this.tx((db, now) => {
      const found = "id" in ref ? oauth.findOAuthGrant(db, ref.id) : oauth.findProviderGrant(db, ref.providerId, ref.userId);
      if (!found || found.revokedAt !== null) return null;
      const ended = oauth.revokeOAuthGrant(db, found.id, now, reason);
      record(db, now, "oauth", "oauth.revoke", ended.clientName, { id: ended.id, via: reason });
      return ended;
    });
  }

  // ---- contexts

  /**
   * The registered context `name`, registering it first when it is missing
   * and `create` allows it (the default context always may be). This is how
   * contexts of a deployment that predates the Registry appear: on first
   * write. Callers pass `create` only for writes, so a read of a misspelt
   * name registers nothing. `push` (a write's lookup) also tells the
   * context's object it is registered, so an object left refusing by a
   * purge or a failed push heals on the next write. `created` says this call
   * registered it, and `revived` that it had been removed (its data is back).
   */
  useContext(name: string, create: boolean, actor: string, push = false): Promise<Outcome<ContextInfo & Registered>> {
    const use = () => this.tx((db, now) => ensureRegistered(db, now, name, create, actor));
    if (!push) return Promise.resolve(use());
    return this.serially(name, () => this.thenRegistered(name, use));
  }

  listContexts(includeRemoved: boolean): Outcome<ContextInfo[]> {
    return this.tx((db) => contexts.listContexts(db, includeRemoved));
  }

  addContext(c: NewContext, actor: string, via: string): Promise<Outcome<ContextInfo & { revived: boolean }>> {
    return this.serially(c.name, () =>
      this.thenRegistered(c.name, () =>
        this.tx((db, now) => {
          const added = contexts.registerContext(db, c, actor, now);
          record(db, now, actor, "context.create", c.name, { via, revived: added.revived, readOnly: added.readOnly });
          return added;
        }),
      ),
    );
  }

  /** A new read-only flag reaches the context's object first (when it makes the context read-only) or after (when it lifts it). */
  updateContext(name: string, patch: ContextPatch, actor: string): Promise<Outcome<ContextInfo>> {
    const update = (counted = true) =>
      this.tx((db, now) => {
        const updated = contexts.updateContext(db, name, patch);
        record(db, now, actor, "context.update", name, { ...patch });
        return updated;
      }, counted);
    if (patch.readOnly === undefined) return Promise.resolve(update());
    return this.serially(name, async () => {
      if (patch.readOnly) {
        const found = this.tx((db) => contexts.registeredContext(db, name));
        if (!found.ok) return found;
        const pushed = await this.push({ name, status: "registered", readOnly: true });
        if (!pushed.ok) return pushed;
        return update(false);
      }
      return this.thenRegistered(name, update);
    });
  }

  /** The context's object refuses writes before the removal is recorded; a failed push removes nothing. */
  removeContext(name: string, actor: string, via: string): Promise<Outcome<ContextInfo>> {
    return this.serially(name, async () => {
      if (name === DEFAULT_CONTEXT) return fail("Invalid", contexts.CANNOT_REMOVE_DEFAULT);
      const removable = this.tx((db) => contexts.registeredContext(db, name));
      if (!removable.ok) return removable;
      const pushed = await this.push({ name, status: "removed" });
      if (!pushed.ok) return pushed;
      return this.tx((db, now) => {
        const removed = contexts.removeContext(db, name, now);
        record(db, now, actor, "context.remove", name, { via });
        return removed;
      }, false);
    });
  }

  /**
   * Purges `name`, one step for that name at a time (no lookup's push can
   * come between): stop routing calls to it, have its object wipe itself
   * (it then refuses every call until registered again), forget the name and
   * record the purge. A failed wipe leaves the context removed, not forgotten.
   */
  purgeContext(name: string, actor: string): Promise<Outcome<{ wasRegistered: boolean }>> {
    return this.serially(name, async () => {
      const before = this.tx((db, now) => {
        const c = contexts.findContext(db, name);
        if (c && c.removedAt === null && name !== DEFAULT_CONTEXT) contexts.removeContext(db, name, now);
        return c ?? null;
      });
      if (!before.ok) return before;
      try {
        await this.env.MEMORY.getByName(name).purge(name);
      } catch (error) {
        return internal("registry.purge", error, name);
      }
      const done = this.tx((db, now) => {
        contexts.deleteContext(db, name);
        record(db, now, actor, "context.purge", name);
      }, false);
      if (!done.ok) return done;
      return ok({ wasRegistered: before.value !== null && before.value.removedAt === null });
    });
  }

  // ---- active context per caller

  activeContext(caller: string): Outcome<ActiveContext> {
    return this.tx((db) => contexts.activeContext(db, caller));
  }

  /** Makes the registered context `name` the caller's active one (the default is registered if need be). */
  setActiveContext(caller: string, name: string, actor: string): Outcome<ContextInfo> {
    return this.tx((db, now) => {
      const c = ensureRegistered(db, now, name, false, actor);
      contexts.setActiveContext(db, caller, name, now);
      const { created: _, revived: __, ...info } = c;
      return info;
    });
  }

  // ---- audit

  auditLog(limit: number, before?: number): Outcome<AuditEntry[]> {
    return this.tx((db) => readAudit(db, limit, before));
  }
}

/** Logs an unexpected error once, with a fresh reference, and returns the failure that carries only the reference. */
function internal(where: string, error: unknown, context?: string): InternalFailure {
  const ref = errorRef();
  console.error(JSON.stringify({ event: "internal_error", ref, where, ...(context === undefined ? {} : { context }), ...describeThrown(error) }));
  return internalFailure(ref);
}

/**
 * The registered context `name`, registering it when it is missing and
 * `create` allows it; the default context always may be registered. This is
 * how contexts of a deployment that predates the Registry appear: on first use.
 */
/** How a context was found by a use (`useContext`). */
interface Registered {
  created: boolean;
  revived: boolean;
}

function ensureRegistered(db: Db, now: number, name: string, create: boolean, actor: string): ContextInfo & Registered {
  const found = contexts.findContext(db, name);
  if (found && found.removedAt === null) return { ...found, created: false, revived: false };
  if (!create && name !== DEFAULT_CONTEXT) throw new DomainError("NotFound", contexts.noSuchContext(name, found !== undefined));
  // A write would revive the removed context only to be refused by its read-only flag: refused here, nothing revived.
  if (create && found?.readOnly) {
    throw new DomainError(
      "Forbidden",
      `Context ${JSON.stringify(name)} was removed and is read-only, so a write cannot bring it back. add_context with read_only false revives it with its data.`,
    );
  }
  const { revived, ...info } = contexts.registerContext(db, { name }, actor, now);
  record(db, now, actor, "context.create", name, { via: "first use", revived });
  return { ...info, created: true, revived };
}
