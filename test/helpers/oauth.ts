/**
 * The OAuth 2.1 flow an MCP client runs, step by step over the Worker's
 * fetch: dynamic registration, the consent page (GET, then the form post
 * with its binding cookie), the code exchange with PKCE S256, refresh.
 */
import { BASE, secured } from "./teams";
import type { Fetch } from "./clients";

export const REDIRECT = "http://127.0.0.1:9999/callback";
export const RESOURCE = `${BASE}/mcp`;

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = b64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = b64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  return { verifier, challenge };
}

let addresses = 0;

/** A client address of its own (TEST-NET-3 and on), so registrations stay under the per-address rate limit. */
export const nextAddress = () => {
  addresses++;
  return `203.0.${113 + Math.floor(addresses / 250)}.${addresses % 250}`;
};

export async function register(
  f: Fetch = secured,
  body: Record<string, unknown> = {},
  address: string = nextAddress(),
): Promise<{ client_id: string; status: number; json: Record<string, unknown> }> {
  const res = await f(`${BASE}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": address },
    body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: "Test Client", token_endpoint_auth_method: "none", ...body }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  return { client_id: String(json.client_id), status: res.status, json };
}

export interface AuthorizeParams {
  clientId: string;
  challenge?: string | undefined;
  method?: string;
  redirect?: string;
  state?: string;
  resource?: string;
}

export function authorizeUrl(p: AuthorizeParams): string {
  const q = new URLSearchParams({ response_type: "code", client_id: p.clientId, redirect_uri: p.redirect ?? REDIRECT, state: p.state ?? "st-1" });
  if (p.challenge !== undefined) q.set("code_challenge", p.challenge);
  if (p.challenge !== undefined || p.method) q.set("code_challenge_method", p.method ?? "S256");
  q.set("resource", p.resource ?? RESOURCE);
  return `${BASE}/authorize?${q}`;
}

/** The consent page as a browser gets it: its HTML, the form's handle and the cookie binding it. */
export async function consentPage(url: string, f: Fetch = secured): Promise<{ res: Response; html: string; handle: string; cookie: string }> {
  const res = await f(url);
  const html = await res.text();
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1] ?? "";
  const cookie = (res.headers.get("Set-Cookie") ?? "").split(";")[0] ?? "";
  return { res, html, handle, cookie };
}

/** The grant rows of a consent page as the browser would post them untouched: every row kept, as shown. */
function formDefaults(html: string): Record<string, string | string[]> {
  const rows = Number(/name="rows" value="(\d+)"/.exec(html)?.[1] ?? "0");
  const fields: Record<string, string | string[]> = { rows: String(rows), grant: [] };
  for (let i = 0; i < rows; i++) {
    (fields.grant as string[]).push(String(i));
    fields[`context-${i}`] = new RegExp(`name="context-${i}" value="([^"]*)"`).exec(html)?.[1] ?? "";
    fields[`role-${i}`] = new RegExp(`name="role-${i}"[^>]*>(?:(?!</select>).)*?<option value="(\\w+)" selected`, "s").exec(html)?.[1] ?? "";
  }
  return fields;
}

/** Posts the consent form (same URL, as the browser does) with the cookie; fields as given. */
export function postConsent(url: string, cookie: string, fields: Record<string, string | string[]>, f: Fetch = secured): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  return f(url, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie }, body, redirect: "manual" });
}

export async function tokenRequest(fields: Record<string, string>, f: Fetch = secured): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await f(`${BASE}/oauth/token`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

export interface Issued {
  clientId: string;
  access: string;
  refresh: string;
  expiresIn: number;
}

/**
 * The whole flow for a consenting `token` (none in open local mode): register,
 * consent (with `extra` form fields, e.g. narrowed grants), exchange the code.
 */
export async function authorize(token: string | undefined, extra: Record<string, string | string[]> = {}, f: Fetch = secured, client?: string): Promise<Issued> {
  const clientId = client ?? (await register(f)).client_id;
  const { verifier, challenge } = await pkce();
  const url = authorizeUrl({ clientId, challenge });
  const page = await consentPage(url, f);
  if (page.res.status !== 200) throw new Error(`consent page: ${page.res.status} ${page.html}`);
  let rows: Record<string, string | string[]> = formDefaults(page.html);
  if (token) {
    // Continue with the token: the page shows its grants, which the second post allows (as shown, or as `extra` narrows them).
    const shown = await postConsent(url, page.cookie, { handle: page.handle, decision: "review", token }, f);
    if (shown.status !== 200) throw new Error(`consent continue: ${shown.status} ${await shown.text()}`);
    rows = formDefaults(await shown.text());
  }
  const posted = await postConsent(url, page.cookie, { handle: page.handle, decision: "allow", ...(token ? { token } : {}), ...rows, ...extra }, f);
  const location = posted.headers.get("Location");
  if (posted.status !== 302 || !location) throw new Error(`consent post: ${posted.status} ${await posted.text()}`);
  const code = new URL(location).searchParams.get("code");
  if (!code) throw new Error(`no code in ${location}`);
  const exchanged = await tokenRequest(
    { grant_type: "authorization_code", code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier, resource: RESOURCE },
    f,
  );
  if (exchanged.status !== 200) throw new Error(`token: ${exchanged.status} ${JSON.stringify(exchanged.json)}`);
  return {
    clientId,
    access: String(exchanged.json.access_token),
    refresh: String(exchanged.json.refresh_token),
    expiresIn: Number(exchanged.json.expires_in),
  };
}
