/**
 * The Worker isolate's short-lived memory of Registry lookups, so a busy
 * client does not cost a Registry call per request: API tokens (who the
 * caller is) and registered contexts (whether a name may be read).
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
 * Reads only (src/auth/access.ts): a write always asks the Registry, so a
 * read-only flag or a removal is never missed by a write, and a purged
 * object never receives a write from a stale entry.
 */
import type { Caller } from "./caller";
import type { ContextInfo } from "../registry/types";

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

export class TokenCache extends TtlCache<Caller> {
  forgetToken(tokenId: string): void {
    for (const [hash, e] of this.entries) if (e.value.tokenId === tokenId) this.entries.delete(hash);
  }
}

/** The isolate's token cache, keyed by the token's SHA-256. */
export const tokenCache = new TokenCache();

/** The isolate's registered contexts, keyed by name (a removed or unknown name is never stored). */
export const contextCache = new TtlCache<ContextInfo>();
