#!/usr/bin/env node
/**
 * engram's admin command line: a thin client of the admin REST API (/api).
 * Plain Node (>= 20) and fetch; no dependencies.
 *
 *   npm run admin -- [--url URL] [--token TOKEN] <command> ...
 *
 * URL defaults to $ENGRAM_URL, else http://127.0.0.1:8787 (npm start).
 * TOKEN defaults to $ADMIN_TOKEN, else $ENGRAM_TOKEN; without one, only a
 * local server in open local mode (no ADMIN_TOKEN configured) answers.
 */
import { parseArgs } from "node:util";
import { request, run, serverBase, UsageError } from "./cli.mjs";

const USAGE = `Usage: npm run admin -- [--url URL] [--token TOKEN] <command>

Tokens
  token create <name> --grant <context>=<role>[+create] [--grant ...]
                                  mint a token (printed once); role: read | write | admin
                                  e.g. --grant 'team-*=write' --grant 'proj-*=write+create' --grant '*=read'
  token list [--revoked]          tokens (never the secrets), with created and last-used times
  token revoke <id|name> [--by id|name]
                                  revoke; takes effect within TOKEN_CACHE_SECONDS everywhere.
                                  tok_... is an id, anything else a live token's name (names
                                  may not start with tok_); --by settles a token named like an
                                  id before that rule

OAuth grants (apps connected through the consent page)
  oauth list [--revoked]          live grants: client, consenting token, contexts and roles, created, last used;
                                  --revoked adds the ended ones (status "revoked", revokedAt, revokedReason:
                                  revoked, refresh token reused, revoked by the client, ADMIN_TOKEN changed, ...)
  oauth revoke <id>               revoke one (oag_...): its access and refresh tokens stop at once.
                                  Revoking a token revokes every grant it consented to.

Contexts
  context list [--removed]
  context create <name> [--description TEXT] [--read-only]
  context update <name> [--description TEXT] [--read-only | --writable] [--capacity JSON]
  context purge <name> --confirm <name>
                                  delete all of the context's data for good

Webhooks (every change of a context POSTed, signed; see docs/team.md)
  webhook add <context> <url> [--secret S]
                                  https, or http to loopback; the secret (16+ characters) signs
                                  each body; default $ENGRAM_WEBHOOK_SECRET (kept out of shell history)
  webhook list <context>          delivery state of each (never the secrets)
  webhook remove <context> <id>

Audit
  audit [--limit N] [--before ID] who did what, newest first

Environment: ENGRAM_URL (default http://127.0.0.1:8787), ADMIN_TOKEN (else ENGRAM_TOKEN).`;

const OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  grant: { type: "string", multiple: true },
  description: { type: "string" },
  "read-only": { type: "boolean" },
  writable: { type: "boolean" },
  capacity: { type: "string" },
  confirm: { type: "string" },
  revoked: { type: "boolean" },
  by: { type: "string" },
  removed: { type: "boolean" },
  limit: { type: "string" },
  before: { type: "string" },
  secret: { type: "string" },
  help: { type: "boolean", short: "h" },
};

/** "team-*=write+create" -> {context: "team-*", role: "write", create: true} */
function parseGrant(text) {
  const match = /^([^=]+)=(read|write|admin)(\+create)?$/.exec(text.trim());
  if (!match) throw new UsageError(`--grant ${JSON.stringify(text)}: expected <context>=<read|write|admin>[+create]`);
  return { context: match[1], role: match[2], ...(match[3] ? { create: true } : {}) };
}

function need(value, what) {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

/** The HTTP request a command line stands for. */
function requestFor(positionals, values) {
  const [group, action, name, extra] = positionals;
  const q = (params) => {
    const s = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== false)).toString();
    return s ? `?${s}` : "";
  };
  switch (`${group} ${action ?? ""}`.trim()) {
    case "token create":
      return {
        method: "POST",
        path: "/api/tokens",
        body: { name: need(name, "<name>"), grants: need(values.grant, "--grant").map(parseGrant) },
      };
    case "token list":
      return { method: "GET", path: `/api/tokens${q({ revoked: values.revoked ? "true" : undefined })}` };
    case "token revoke":
      if (values.by !== undefined && values.by !== "id" && values.by !== "name") throw new UsageError(`--by must be id or name, not ${JSON.stringify(values.by)}`);
      return { method: "DELETE", path: `/api/tokens/${encodeURIComponent(need(name, "<id|name>"))}${q({ by: values.by })}` };
    case "oauth list":
      return { method: "GET", path: `/api/oauth/grants${q({ revoked: values.revoked ? "true" : undefined })}` };
    case "oauth revoke":
      return { method: "DELETE", path: `/api/oauth/grants/${encodeURIComponent(need(name, "<id>"))}` };
    case "context list":
      return { method: "GET", path: `/api/contexts${q({ removed: values.removed ? "true" : undefined })}` };
    case "context create":
      return {
        method: "POST",
        path: "/api/contexts",
        body: {
          name: need(name, "<name>"),
          ...(values.description !== undefined ? { description: values.description } : {}),
          ...(values["read-only"] ? { readOnly: true } : {}),
        },
      };
    case "context update": {
      if (values["read-only"] && values.writable) throw new UsageError("give --read-only or --writable, not both");
      let capacity;
      if (values.capacity !== undefined) {
        try {
          capacity = JSON.parse(values.capacity);
        } catch {
          throw new UsageError('--capacity must be JSON, e.g. \'{"total":10000,"short":2000}\' or null');
        }
      }
      return {
        method: "PATCH",
        path: `/api/contexts/${encodeURIComponent(need(name, "<name>"))}`,
        body: {
          ...(values.description !== undefined ? { description: values.description } : {}),
          ...(values["read-only"] ? { readOnly: true } : {}),
          ...(values.writable ? { readOnly: false } : {}),
          ...(capacity !== undefined ? { capacity } : {}),
        },
      };
    }
    case "context purge":
      return {
        method: "POST",
        path: `/api/contexts/${encodeURIComponent(need(name, "<name>"))}/purge${q({ confirm: need(values.confirm, "--confirm <name>") })}`,
      };
    case "webhook add":
      return {
        method: "POST",
        path: `/api/contexts/${encodeURIComponent(need(name, "<context>"))}/webhooks`,
        body: { url: need(extra, "<url>"), secret: need(values.secret ?? process.env.ENGRAM_WEBHOOK_SECRET, "--secret (or $ENGRAM_WEBHOOK_SECRET)") },
      };
    case "webhook list":
      return { method: "GET", path: `/api/contexts/${encodeURIComponent(need(name, "<context>"))}/webhooks` };
    case "webhook remove":
      return { method: "DELETE", path: `/api/contexts/${encodeURIComponent(need(name, "<context>"))}/webhooks/${encodeURIComponent(need(extra, "<id>"))}` };
    case "audit":
      return { method: "GET", path: `/api/audit${q({ limit: values.limit, before: values.before })}` };
    default:
      throw new UsageError(`unknown command: ${positionals.join(" ") || "(none)"}`);
  }
}

async function main(argv) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error.message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    console.log(USAGE);
    return 0;
  }
  const call = requestFor(positionals, values);
  const base = serverBase(values);
  const token = values.token ?? process.env.ADMIN_TOKEN ?? process.env.ENGRAM_TOKEN;
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  // Every change is declared JSON, even a purge or a revocation without a body: the server refuses
  // state-changing requests a browser form could send (see docs/contexts-and-auth.md).
  if (call.method !== "GET") headers["Content-Type"] = "application/json";
  const res = await request(base, call.path, {
    method: call.method,
    headers,
    ...(call.body ? { body: JSON.stringify(call.body) } : {}),
  });
  const text = await res.text();
  let out;
  try {
    out = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    out = text;
  }
  if (!res.ok) {
    console.error(`HTTP ${res.status}: ${out}`);
    return 1;
  }
  console.log(out);
  if (call.path === "/api/tokens" && call.method === "POST") {
    console.error("\nThe token above is shown once: store it now (e.g. in your MCP client's config).");
  }
  return 0;
}

run(main, USAGE);
