/**
 * The Worker isolate's short-lived memory of API token lookups, so a busy
 * client does not cost a Registry call per request.
 *
 * ## Bound
 * An entry lives TOKEN_CACHE_SECONDS (default 30, at most 60) from the
 * lookup that filled it; after that the token is looked up again. So a token
 * revoked anywhere stops working everywhere within that bound, and at once in
 * the isolate that revoked it (`forgetToken`). Only successful lookups are
 * kept: an unknown token is asked about every time. The clock is injectable
 * so tests cross the bound without sleeping.
 */
import type { Caller } from "./caller";

export class TokenCache {
  now: () => number = Date.now;
  private readonly entries = new Map<string, { caller: Caller; expires: number }>();

  constructor(readonly maxEntries = 1000) {}

  get(hash: string): Caller | undefined {
    const e = this.entries.get(hash);
    if (!e) return undefined;
    if (this.now() >= e.expires) {
      this.entries.delete(hash);
      return undefined;
    }
    return e.caller;
  }

  set(hash: string, caller: Caller, ttlMs: number): void {
    if (ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(hash, { caller, expires: this.now() + ttlMs });
  }

  forgetToken(tokenId: string): void {
    for (const [hash, e] of this.entries) if (e.caller.tokenId === tokenId) this.entries.delete(hash);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** The isolate's cache. */
export const tokenCache = new TokenCache();
