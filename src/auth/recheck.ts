/**
 * Who a caller authenticated earlier is now, for what outlives its request:
 * an open stream of live subscriptions (src/mcp/watch.ts). It is judged as
 * the caller's next request would be, through the same isolate caches
 * (./cache.ts), so a revocation reaches it at once in the isolate that made
 * it and within TOKEN_CACHE_SECONDS in every other.
 *
 * - An API token: its secret, from the request's Authorization header, must
 *   still name that live token.
 * - An OAuth grant: the Registry must still hold it live, and its consenting
 *   token too (./oauth.ts). An expired access token does not end a stream;
 *   the end of its grant does.
 * - The administrator and open local mode are not revoked.
 */
import type { Caller } from "./caller";
import { bearerCaller, bearerToken } from "./index";
import { grantCaller } from "./oauth";

/** The caller `caller` still is (its grants as they stand), or undefined once its token is revoked or its OAuth grant ended. */
export async function recheckCaller(caller: Caller, request: Request, env: Env): Promise<Caller | undefined> {
  if (caller.kind === "admin" || caller.kind === "local") return caller;
  if (caller.kind === "oauth") return caller.oauthGrant ? grantCaller(caller.oauthGrant, env) : undefined;
  const token = bearerToken(request);
  const now = token ? await bearerCaller(token, env) : undefined;
  return now?.tokenId !== undefined && now.tokenId === caller.tokenId ? now : undefined;
}
