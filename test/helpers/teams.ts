/**
 * Helpers for the teams tests: the app with an ADMIN_TOKEN configured, the
 * admin REST API, minting tokens, and MCP clients that present a token.
 */
import type { Grant } from "../../src/auth/grants";
import { type ConnectOptions, type Fetch, type TestClient, freshContext, workerFetch } from "./clients";

export const ADMIN = "test-admin-secret-0123456789";
export const BASE = "http://localhost";

/** The app as a deployment with an administrator: every request needs a token. */
export const secured: Fetch = workerFetch({ ADMIN_TOKEN: ADMIN });

/** A time as the admin API shows one (src/api/times.ts): ISO 8601, UTC, with milliseconds. */
export const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Calls the REST API as `token` (the administrator by default). */
export function api(path: string, init: RequestInit & { json?: unknown } = {}, token = ADMIN): Promise<Response> {
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  headers.set("Authorization", `Bearer ${token}`);
  if (json !== undefined) headers.set("Content-Type", "application/json");
  return secured(`${BASE}/api${path}`, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json) } : {}) });
}

export interface Minted {
  id: string;
  name: string;
  token: string;
}

/** Mints a token with `grants` through the admin API. */
export async function mint(grants: Grant[], name = freshContext("user")): Promise<Minted> {
  const res = await api("/tokens", { method: "POST", json: { name, grants } });
  if (res.status !== 201) throw new Error(`mint failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as Minted;
}

/** Registers a context through the admin API. */
export async function createContext(name: string, extra: { readOnly?: boolean; description?: string } = {}): Promise<void> {
  const res = await api("/contexts", { method: "POST", json: { name, ...extra } });
  if (res.status !== 201) throw new Error(`create context failed: ${res.status} ${await res.text()}`);
}

type Connect = (opts?: ConnectOptions) => Promise<TestClient>;

/** An MCP client on the secured app presenting `token`. */
export const connectAs = (connect: Connect, token: string, path = "/mcp") => connect({ url: `${BASE}${path}`, fetch: secured, headers: bearer(token) });

/** A raw JSON-RPC initialize, for checking HTTP statuses the SDK clients would turn into exceptions. */
export function initialize(path: string, headers: Record<string, string>, fetch: Fetch = secured, base = BASE): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
}
