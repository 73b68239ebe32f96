/**
 * A minimal MCP client over Streamable HTTP for the hook scripts: plain Node
 * (18 or newer), no dependencies, since the hooks run on the user's machine
 * from the plugin directory.
 *
 * ## Exchange
 * `connect` sends `initialize`, keeps the `Mcp-Session-Id` the server may
 * answer with, and sends `notifications/initialized`; `call` and `read` then
 * send one JSON-RPC request each. An answer is either JSON or an SSE stream;
 * for a stream, the first `message` event whose id is the request's is the
 * answer.
 *
 * ## Failures
 * Every failure is an `EngramError` whose message is one line naming the
 * server by host only (never the URL's user info, path or query) and never
 * the token. Every request is bounded by the caller's `signal`.
 */

const PROTOCOL_VERSION = "2025-06-18";
const CLIENT = { name: "engram-claude-code-plugin", version: "0.1.0" };

export class EngramError extends Error {}

/** The host of `url` for messages, or "the server" when the URL does not parse. */
export function hostOf(url) {
  try {
    return new URL(url).host;
  } catch {
    return "the server";
  }
}

/** The JSON-RPC message with `id` in an SSE body: `data:` lines joined per event, events split by a blank line. */
function fromEventStream(text, id) {
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (!data) continue;
    try {
      const message = JSON.parse(data);
      if (message && message.id === id) return message;
    } catch {
      // A comment or a partial event: not the answer.
    }
  }
  return undefined;
}

/**
 * A connected client: `{ call(name, args), prompt(name, args), read(uri) }`, each resolving to
 * the JSON-RPC result. `token` empty or undefined sends no Authorization header.
 */
export async function connect({ url, token, signal }) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new EngramError("ENGRAM_URL is not an absolute URL (for example http://127.0.0.1:8787/mcp)");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new EngramError("ENGRAM_URL must be http or https");
  const host = parsed.host;
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  if (token) headers.Authorization = `Bearer ${token}`;
  let nextId = 1;

  async function post(body) {
    let response;
    try {
      response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
    } catch (error) {
      if (signal?.aborted) throw new EngramError(`${host} did not answer in time`);
      const cause = error?.cause?.code ?? error?.cause?.message ?? error?.message ?? "network error";
      throw new EngramError(`cannot reach ${host} (${cause})`);
    }
    return response;
  }

  async function request(method, params) {
    const id = nextId++;
    const response = await post({ jsonrpc: "2.0", id, method, params });
    let text;
    try {
      text = await response.text();
    } catch {
      throw new EngramError(`${host} did not answer in time`);
    }
    if (response.status === 401 || response.status === 403) {
      throw new EngramError(`${host} refused the request (HTTP ${response.status}): check ENGRAM_TOKEN and its grants`);
    }
    if (!response.ok) throw new EngramError(`${host} answered HTTP ${response.status} to ${method}`);
    const session = response.headers.get("Mcp-Session-Id");
    if (session) headers["Mcp-Session-Id"] = session;
    const type = response.headers.get("Content-Type") ?? "";
    let message;
    if (type.includes("text/event-stream")) message = fromEventStream(text, id);
    else {
      try {
        message = JSON.parse(text);
      } catch {
        message = undefined;
      }
    }
    if (!message || typeof message !== "object") throw new EngramError(`${host} sent no JSON-RPC answer to ${method}`);
    if (message.error) throw new EngramError(`${method} failed: ${String(message.error.message ?? "error").split("\n")[0]}`);
    return message.result;
  }

  const init = await request("initialize", { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: CLIENT });
  headers["MCP-Protocol-Version"] = typeof init?.protocolVersion === "string" ? init.protocolVersion : PROTOCOL_VERSION;
  const notified = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  await notified.arrayBuffer().catch(() => undefined);

  return {
    /** tools/call; a result with isError becomes an EngramError with its first line. */
    async call(name, args) {
      const result = await request("tools/call", { name, arguments: args });
      if (result?.isError) {
        const text = result.content?.find((c) => c.type === "text")?.text ?? "error";
        throw new EngramError(`${name} failed: ${String(text).split("\n")[0]}`);
      }
      return result;
    },
    /** prompts/get: the text of its messages, joined. */
    async prompt(name, args) {
      const result = await request("prompts/get", { name, arguments: args });
      return (result?.messages ?? []).map((m) => (typeof m?.content?.text === "string" ? m.content.text : "")).join("\n");
    },
    /** resources/read: the text of the first content. */
    async read(uri) {
      const result = await request("resources/read", { uri });
      return result?.contents?.find((c) => typeof c.text === "string")?.text ?? "";
    },
  };
}
