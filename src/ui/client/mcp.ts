/**
 * The web page's connection to the server: a tiny MCP client plus the one
 * read-only REST helper the page uses. It runs in the browser and in tests
 * (no DOM here, only fetch).
 *
 * ## Protocol
 * Every MCP call is one stateless JSON-RPC POST in the 2026-07-28 form, as
 * the SDK v2 client sends it: the `MCP-Protocol-Version`, `Mcp-Method` and
 * (for tools/call) `Mcp-Name` headers, and the per-request `_meta` envelope
 * (protocol version, clientInfo, capabilities) in `params`. No initialize,
 * no session id. The answer is JSON, or an SSE stream whose message with the
 * request's id is the answer.
 *
 * ## Auth and attribution
 * The token (if any) goes as `Authorization: Bearer`, so the page passes the
 * same authentication, grants and Origin checks as any MCP client; its
 * writes are recorded in history under the token's name like an agent's.
 * `Mcp-Memory-Session` carries a key per browser tab, so co-visitation sees a
 * tab as one session and the page can find its own changes in history.
 */
import { VERSION } from "../../version";

export const PROTOCOL_VERSION = "2026-07-28";
const CLIENT_INFO = { name: "engram-web", version: VERSION } as const;

const META = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
  "io.modelcontextprotocol/clientCapabilities": {},
};

export interface ToolResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

export interface ToolInfo {
  name: string;
  title?: string;
  annotations?: { readOnlyHint?: boolean };
  /** The arguments the tool takes (its JSON Schema); the page asks for newer arguments only where they are listed. */
  inputSchema?: { properties?: Record<string, unknown> };
}

/** Why a call failed: `auth` (401: sign in again), `forbidden` (403), `http` (other statuses), `protocol` (JSON-RPC error), `tool` (isError). */
export type FailureKind = "auth" | "forbidden" | "http" | "protocol" | "tool";

export class CallError extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly status?: number,
  ) {
    super(message);
    this.name = "CallError";
  }
}

type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Prepended to /mcp and /api paths: "" in the page, an origin in tests. */
  base?: string;
  /** The bearer token, read at each call (it may change when the user signs in). */
  token?: () => string | undefined;
  /** The tab's session key (Mcp-Memory-Session). */
  session?: string;
  fetch?: Fetch;
}

/** The text of a result without its `[context: name]` line. */
const resultText = (r: ToolResult): string =>
  r.content
    .map((c) => c.text ?? "")
    .filter((t) => !/^\[context: [^\]]*\]$/.test(t))
    .join("\n");

/** The JSON-RPC message answering `id` in an SSE body, if any. */
function fromEventStream(body: string, id: number): unknown {
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trimStart())
      .join("\n");
    if (!data) continue;
    try {
      const message = JSON.parse(data) as { id?: unknown };
      if (message.id === id) return message;
    } catch {
      // Not JSON: a comment or keep-alive; the answer is another event.
    }
  }
  return undefined;
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: unknown };
    if (typeof body.message === "string") return body.message;
    if (body.error && typeof body.error === "object" && "message" in body.error) return String(body.error.message);
  } catch {
    // Not JSON; the text itself says what went wrong.
  }
  return text.slice(0, 300) || `HTTP ${response.status}`;
}

function failureKind(status: number): FailureKind {
  if (status === 401) return "auth";
  if (status === 403) return "forbidden";
  return "http";
}

export class EngramClient {
  private nextId = 1;
  private readonly fetch: Fetch;

  constructor(private readonly options: ClientOptions = {}) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...extra };
    const token = this.options.token?.();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (this.options.session) headers["Mcp-Memory-Session"] = this.options.session;
    return headers;
  }

  /** One JSON-RPC request to /mcp (or /mcp/<context>); the `result`, or a CallError. */
  async request(context: string | undefined, method: string, params: Record<string, unknown> = {}, name?: string): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const path = context === undefined ? "/mcp" : `/mcp/${encodeURIComponent(context)}`;
    const response = await this.fetch(`${this.options.base ?? ""}${path}`, {
      method: "POST",
      headers: this.headers({
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL_VERSION,
        "Mcp-Method": method,
        ...(name !== undefined ? { "Mcp-Name": name } : {}),
      }),
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } }),
    });
    if (!response.ok) throw new CallError(await errorMessage(response), failureKind(response.status), response.status);
    const body = await response.text();
    const message = (response.headers.get("Content-Type") ?? "").includes("text/event-stream") ? fromEventStream(body, id) : JSON.parse(body);
    const rpc = message as { result?: Record<string, unknown>; error?: { message?: string } } | undefined;
    if (rpc?.error) throw new CallError(rpc.error.message ?? "The server refused the request.", "protocol");
    if (!rpc?.result) throw new CallError("The server sent no answer to the request.", "protocol");
    return rpc.result;
  }

  /** Every tool the endpoint lists (following pagination). */
  async listTools(context?: string): Promise<ToolInfo[]> {
    const tools: ToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const result = await this.request(context, "tools/list", cursor === undefined ? {} : { cursor });
      tools.push(...((result.tools as ToolInfo[] | undefined) ?? []));
      cursor = typeof result.nextCursor === "string" ? result.nextCursor : undefined;
    } while (cursor !== undefined);
    return tools;
  }

  /** A tools/call; a tool error (isError) becomes a CallError of kind "tool" with the tool's message. */
  async callTool(context: string | undefined, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
    const result = (await this.request(context, "tools/call", { name, arguments: args }, name)) as unknown as ToolResult;
    if (result.isError) throw new CallError(resultText(result) || `${name} failed.`, "tool");
    return result;
  }

  /** `structuredContent` of a successful call. */
  async call<T>(context: string | undefined, name: string, args: Record<string, unknown> = {}): Promise<T> {
    const result = await this.callTool(context, name, args);
    return (result.structuredContent ?? {}) as T;
  }

  /** A GET under /api with the same auth; the JSON body, or a CallError. */
  async getJson<T>(path: string): Promise<T> {
    const response = await this.fetch(`${this.options.base ?? ""}/api${path}`, { method: "GET", headers: this.headers({ Accept: "application/json" }) });
    if (!response.ok) throw new CallError(await errorMessage(response), failureKind(response.status), response.status);
    return (await response.json()) as T;
  }

  /** A GET under /api with the same auth, its body as a Blob (a download), or a CallError. */
  async getBlob(path: string): Promise<Blob> {
    const response = await this.fetch(`${this.options.base ?? ""}/api${path}`, { method: "GET", headers: this.headers({}) });
    if (!response.ok) throw new CallError(await errorMessage(response), failureKind(response.status), response.status);
    return response.blob();
  }

  /** A POST of `body` (of media type `type`) under /api with the same auth: the status and the JSON answer, whatever the status; a 401 is a CallError. */
  async postBody<T>(path: string, body: Blob | string, type: string): Promise<{ status: number; body: T }> {
    const response = await this.fetch(`${this.options.base ?? ""}/api${path}`, {
      method: "POST",
      headers: this.headers({ Accept: "application/json", "Content-Type": type }),
      body,
    });
    if (response.status === 401) throw new CallError(await errorMessage(response), "auth", 401);
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) as T };
    } catch {
      throw new CallError(text.slice(0, 300) || `HTTP ${response.status}`, failureKind(response.status), response.status);
    }
  }

  /** A POST or PATCH of a JSON body under /api with the same auth; the JSON answer, or a CallError with the server's message. */
  async sendJson<T>(method: "POST" | "PATCH", path: string, body: unknown): Promise<T> {
    const response = await this.fetch(`${this.options.base ?? ""}/api${path}`, {
      method,
      headers: this.headers({ Accept: "application/json", "Content-Type": "application/json" }),
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new CallError(await errorMessage(response), failureKind(response.status), response.status);
    return (await response.json()) as T;
  }

  /** A DELETE under /api with the same auth (declared JSON, no body, as the API asks of state changes); the JSON body, or a CallError. */
  async deleteJson<T>(path: string): Promise<T> {
    const response = await this.fetch(`${this.options.base ?? ""}/api${path}`, {
      method: "DELETE",
      headers: this.headers({ Accept: "application/json", "Content-Type": "application/json" }),
    });
    if (!response.ok) throw new CallError(await errorMessage(response), failureKind(response.status), response.status);
    return (await response.json()) as T;
  }
}
