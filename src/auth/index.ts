/**
 * The single authentication seam: every request to /mcp and /api passes
 * through `authenticate`, which returns the caller or the response refusing it.
 *
 * - ADMIN_TOKEN set: `Authorization: Bearer <ADMIN_TOKEN>` is the administrator;
 *   anything else is 401 with `WWW-Authenticate: Bearer`.
 * - ADMIN_TOKEN unset: requests to a loopback host are served in open local
 *   mode (caller "local"); every other request is 503, so a deployment is
 *   never accidentally public.
 */
import type { Caller } from "./caller";
import { secretMatches } from "./secrets";

export type AuthResult = { ok: true; caller: Caller } | { ok: false; response: Response };

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

export const isLoopbackHost = (hostname: string) => LOOPBACK.test(hostname);

const refuse = (status: number, error: string, message: string, headers: Record<string, string> = {}): AuthResult => ({
  ok: false,
  response: Response.json({ error, message }, { status, headers }),
});

export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get("Authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

export async function authenticate(request: Request, env: Env): Promise<AuthResult> {
  const adminToken = env.ADMIN_TOKEN?.trim();
  if (!adminToken) {
    if (isLoopbackHost(new URL(request.url).hostname)) return { ok: true, caller: { id: "local", kind: "local" } };
    return refuse(
      503,
      "not_configured",
      "This server has no ADMIN_TOKEN and only serves loopback requests. Set one with `wrangler secret put ADMIN_TOKEN`.",
    );
  }
  const token = bearerToken(request);
  if (!token) {
    return refuse(401, "unauthorized", "Send Authorization: Bearer <token>.", {
      "WWW-Authenticate": 'Bearer realm="engram"',
    });
  }
  if (await secretMatches(token, adminToken)) return { ok: true, caller: { id: "admin", kind: "admin" } };
  return refuse(401, "invalid_token", "The bearer token is not valid.", {
    "WWW-Authenticate": 'Bearer realm="engram", error="invalid_token"',
  });
}

/**
 * Browsers send Origin; a foreign one is refused so a web page cannot drive
 * a local or shared server with the user's network position. Clients that
 * send no Origin (CLIs, IDEs) pass.
 */
export function originAllowed(request: Request, env: Env): boolean {
  const origin = request.headers.get("Origin");
  if (origin === null) return true;
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    return false;
  }
  const url = new URL(request.url);
  if (originHost === url.host) return true;
  if (isLoopbackHost(url.hostname) && isLoopbackHost(new URL(origin).hostname)) return true;
  const extra = (env.ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return extra.includes(origin);
}
