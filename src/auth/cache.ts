/**
 * The Worker isolate's short-lived memory of Registry lookups, so a busy
 * client does not cost a Registry call per request: API tokens (who the
 * caller is), registered contexts (whether a name may be used) and each
 * caller's active context.
 *
 * ## Bound
 * An entry lives TOKEN_CACHE_SECONDS (default 30, at most 60) from the
 * lookup that filled it; after that it is looked up again. So a token
 * revoked anywhere stops working everywhere within that bound, and at once in
 * the isolate that revoked it (`forgetToken`); likewise a context removed or
 * purged elsewhere stops answering reads within the bound, and at once in the
 * isolate that removed or purged it (`forget`). Only successful lookups are
 * kept: an unknown token or context is asked about every time. The clock is
 * injectable so tests cross the bound without sleeping.
 *
 * ## What the context cache may decide
 * Whether a call may go on to the context's object (src/auth/access.ts).
 * The object itself refuses a write into a read-only, removed or purged
 * context, and any call into a purged one (src/context/registration.ts),
 * so a stale entry never lets a write through. The active context is kept
 * per caller (`activeCache`): set_active_context replaces this isolate's
 * entry at once, and a removal or purge here forgets the entries naming it.
 */
import type { Caller } from "./caller";
import type { ActiveContext, ContextInfo } from "../registry/types";

export class TtlCache<V> {
  now: () => number = Date.now;
  protected readonly entries = new Map<string, { value: V; expires: number }>();

  constructor(readonly maxEntries = 1000) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.now() >= e.expires) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(key)) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expires: this.now() + ttlMs });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

class TokenCache extends TtlCache<Caller> {
  forgetToken(tokenId: string): void {
    for (const [hash, e] of this.entries) if (e.value.tokenId === tokenId) this.entries.delete(hash);
  }
}

/** The isolate's token cache, keyed by the token's SHA-256. */
export const tokenCache = new TokenCache();

/** The isolate's registered contexts, keyed by name (a removed or unknown name is never stored). */
export const contextCache = new TtlCache<ContextInfo>();

class ActiveCache extends TtlCache<ActiveContext> {
  /** Forgets every caller's entry that names `context` (removed or purged here). */
  forgetContext(context: string): void {
    for (const [key, e] of this.entries) if (e.value.name === context) this.entries.delete(key);
  }
}

/** The isolate's active contexts, keyed by callerKey. */
export const activeCache = new ActiveCache();
