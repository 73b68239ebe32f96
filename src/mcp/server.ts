/**
 * Builds the McpServer for one request. The transport is stateless, so the
 * server is rebuilt per request, with only what that request can reach
 * (`Surface`): a `tools/call` gets its one tool, a `ping` or a notification
 * gets none, a prompts, resources or completion request gets the prompts,
 * resources and completions and no tool, anything else (`initialize`,
 * `server/discover`, `tools/list`) gets everything enabled. What does not depend on the request (each
 * tool's zod object schemas and their JSON Schema conversions) is built once
 * per isolate.
 *
 * Registering every tool costs a large share of a 2025-era ping, plus the
 * garbage it leaves for the collector. The request's scope stays in closures, so two
 * requests in flight in one isolate cannot see each other's caller or
 * context; caching whole servers would need a pool and a reset of the
 * per-request protocol state (negotiated version, client capabilities),
 * which the SDK does not promise.
 */
import { CLIENT_INFO_META_KEY, McpServer, type CallToolResult, type ServerContext, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { z } from "zod";
import { activeContextOf, openContext, type Need } from "../auth/access";
import { callerIdOf, type Caller } from "../auth/caller";
import { describeThrown, errorRef, fail } from "../errors";
import { CONTEXT_NAME_PATTERN, DEFAULT_CONTEXT } from "../limits";
import { describeMalformed, malformedIn } from "../text";
import { VERSION } from "../version";
import { registerCompletions } from "./completions";
import { invalid, servedKinds, type GuideScope } from "./guide";
import { instructions } from "./guidance";
import { registerPrompts } from "./prompts";
import { registerResources } from "./resources";
import { contextArg, contextArgListed } from "./schemas";
import { registerSubscriptions } from "./subscriptions";
import { TOOLS } from "./tools";
import { type Annotations, contextLine, failure, internalErrorText, type ResolvedContext, type ToolContext, type ToolDef, type Toolset } from "./tool";

const SERVER_INFO = { name: "engram", version: VERSION } as const;

/** What the Worker learned about a request before MCP saw it. */
export interface RequestScope {
  env: Env;
  caller: Caller;
  /** The context named in the URL (/mcp/<context>), if any. */
  pinned?: string;
  toolsets: ReadonlySet<Toolset>;
  /** Session key for co-visitation (Mcp-Memory-Session header, else an Mcp-Session-Id this server did not issue). */
  session?: string;
  /** The Mcp-Session-Id header: the 2025-era session whose subscriptions a resources/subscribe adds to (./subscriptions.ts). */
  mcpSession?: string;
  /** A 2025-era request: the server answers resources/subscribe (the 2026-07-28 lane has no such session, and listens instead). */
  legacy?: boolean;
  /** The User-Agent header: the client's name when the request does not carry MCP clientInfo. */
  userAgent?: string;
  /** The request asked for each result's RPC time in `_meta` (a benchmark; see TIMING_HEADER). */
  timing?: boolean;
}

const CLIENT_NAME_MAX = 128;

/**
 * The client's name for this request: the MCP clientInfo a 2026-07-28 request
 * carries in its envelope, else the User-Agent header (2025-era clients send
 * clientInfo only with `initialize`, a different request).
 */
function clientName(extra: ServerContext | undefined, scope: RequestScope): string | undefined {
  const envelope = extra?.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = envelope?.[CLIENT_INFO_META_KEY];
  const name = info && typeof info === "object" && "name" in info && typeof info.name === "string" ? info.name : scope.userAgent;
  // Recorded in history beside every change: well-formed (src/text.ts), so the record is what was stored.
  const clean = name
    ?.toWellFormed()
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, CLIENT_NAME_MAX);
  return clean ? clean : undefined;
}

interface Compiled {
  def: ToolDef;
  /** Validates a call's arguments, refusing unknown names; the handler runs it, so a refusal carries the context line like any result. */
  input: z.ZodObject;
  /** What the SDK lists: `input`'s JSON Schema (as an open object), and a validator that passes everything on to the handler. */
  listedInput: StandardSchemaWithJSON<Record<string, unknown>>;
  /** Each result's structuredContent must match it; listed only for the tools that say so (`ToolDef.listOutputSchema`). */
  output: z.ZodObject;
  listedOutput?: StandardSchemaWithJSON;
}

type JsonSchemaOf = (options: { target: string }) => Record<string, unknown>;
type Json = Record<string, unknown>;

/**
 * A listed JSON Schema without what carries no information for a client, so
 * every conversation's tools/list stays small: the `$schema` dialect (MCP
 * schemas default to 2020-12), zod's bounds of a whole number at the safe
 * integers, `propertyNames: {type: string}` (every JSON key is a string) and,
 * in output schemas, `additionalProperties: false` (an output schema says what
 * a result holds; the server makes the results, so no client needs it
 * closed). Frozen, so no caller can alter the next one's.
 */
function compact(node: unknown, output: boolean): unknown {
  if (Array.isArray(node)) return Object.freeze(node.map((n) => compact(n, output)));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === "$schema") continue;
    if (key === "minimum" && value === Number.MIN_SAFE_INTEGER) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    if (key === "propertyNames" && JSON.stringify(value) === '{"type":"string"}') continue;
    if (key === "additionalProperties" && value === false && output) continue;
    // "properties" maps names to schemas: a property may be called "minimum" or "$schema".
    out[key] = key === "properties" ? mapValues(value as Json, (v) => compact(v, output)) : compact(value, output);
  }
  return Object.freeze(out);
}

const mapValues = (o: Json, f: (v: unknown) => unknown) => Object.freeze(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)])));

/**
 * Converts a schema to JSON Schema once per isolate. The SDK converts every
 * tool's input and output schema through `~standard.jsonSchema` on every
 * tools/list (and the input schema on every 2026-era tools/call), a good
 * share of a tools/list's server time. The schemas never change, so the first answer per target is kept.
 */
function listedJsonSchema(schema: z.ZodObject, io: "input" | "output"): StandardSchemaWithJSON["~standard"]["jsonSchema"] {
  const convert = schema["~standard"].jsonSchema as unknown as Record<"input" | "output", JsonSchemaOf>;
  const memo = (): JsonSchemaOf => {
    const cache = new Map<string, Json>();
    return (options) => {
      const key = JSON.stringify(options ?? null);
      let hit = cache.get(key);
      if (!hit) cache.set(key, (hit = compact(convert[io](options), io === "output") as Json));
      return hit;
    };
  };
  // The SDK asks for the input side of an input schema and the output side of an output schema.
  const side = memo();
  return { input: side, output: side };
}

/** The input schema the SDK sees: the tool's JSON Schema (see `contextArgListed`), and no validation (the handler validates, see `Compiled.input`). */
function listedInput(schema: z.ZodObject): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    "~standard": {
      version: 1,
      vendor: "engram",
      validate: (value) => ({ value: (value ?? {}) as Record<string, unknown> }),
      jsonSchema: listedJsonSchema(schema, "input"),
    },
  };
}

/** The output schema the SDK sees: zod's validation of each result, and the compact JSON Schema. */
function listedOutput(schema: z.ZodObject): StandardSchemaWithJSON {
  return { "~standard": { ...schema["~standard"], jsonSchema: listedJsonSchema(schema, "output") } } as StandardSchemaWithJSON;
}

/**
 * A title that only restates the name ("Create Entities" for create_entities)
 * tells a client nothing it lacks: a tool without one is shown by its name.
 * Only titles that say more ("Rename or Move File or Directory") are listed.
 */
const listedTitle = (def: ToolDef): { title?: string } => (def.title.toLowerCase() === def.name.replaceAll("_", " ") ? {} : { title: def.title });

/**
 * The hints tools/list states: only what a client cannot infer. A read-only
 * tool says so and nothing more (MCP counts destructiveHint and
 * idempotentHint only for tools that write: a read destroys nothing and is
 * repeatable). A write tool leaves out readOnlyHint: false and idempotentHint:
 * false, which are MCP's defaults, and always states destructiveHint, so a
 * client deciding whether to ask first sees that a tool deletes without
 * knowing the defaults. openWorldHint is always false, against a default of
 * true. The presets (src/mcp/tool.ts) keep all four.
 */
function listedAnnotations(a: Annotations): Partial<Annotations> {
  if (a.readOnlyHint) return { readOnlyHint: true, openWorldHint: a.openWorldHint };
  return { destructiveHint: a.destructiveHint, ...(a.idempotentHint ? { idempotentHint: true } : {}), openWorldHint: a.openWorldHint };
}

/** How many unknown argument names a refusal quotes, and how much of each. */
const UNKNOWN_SHOWN = 5;
const UNKNOWN_NAME_SHOWN = 60;

/**
 * The refusal of argument names a tool does not take: dropping them would let
 * a typo change what a call does (`undo {"chnage": 3}` undoing the latest
 * change). Other issues keep zod's words.
 */
function unknownArguments(tool: string, accepted: readonly string[]): z.core.$ZodErrorMap {
  const takes = accepted.length === 0 ? `${tool} takes no arguments` : `${tool} takes: ${accepted.join(", ")}`;
  return (issue) => {
    if (issue.code !== "unrecognized_keys") return undefined;
    // A few names, each cut, so a flood of arguments or a megabyte-long name is not echoed back whole.
    const shown = issue.keys.slice(0, UNKNOWN_SHOWN).map((k) => JSON.stringify(k.length > UNKNOWN_NAME_SHOWN ? `${k.slice(0, UNKNOWN_NAME_SHOWN)}…` : k));
    const more = issue.keys.length > UNKNOWN_SHOWN ? ` and ${issue.keys.length - UNKNOWN_SHOWN} more` : "";
    return `unknown argument${issue.keys.length === 1 ? "" : "s"} ${shown.join(", ")}${more}; ${takes}`;
  };
}

/**
 * A tool's input refuses unknown argument names (`unknownArguments`). Its
 * listed JSON Schema is the open object zod lists without
 * `additionalProperties: false`: the refusal names the accepted arguments,
 * and that line in every tool's schema would not fit tools/list's byte budget
 * (test/mcp/token-economy.test.ts).
 */
const compiled: Compiled[] = TOOLS.map((def) => {
  const shape = def.managesContexts ? def.input : { ...def.input, context: contextArg };
  const input = z.strictObject(shape, { error: unknownArguments(def.name, Object.keys(shape)) });
  const listed = z.object(def.managesContexts ? def.input : { ...def.input, context: contextArgListed });
  const output = z.object(def.output);
  return { def, input, listedInput: listedInput(listed), output, ...(def.listOutputSchema ? { listedOutput: listedOutput(output) } : {}) };
});
const compiledByName = new Map(compiled.map((entry) => [entry.def.name, entry]));

/**
 * What one request can reach, so the server built for it registers no more:
 * everything enabled, nothing (a ping or a notification has no use for
 * tools), the prompts, resources and completions (./guide.ts), or one enabled
 * tool (a tools/call naming it).
 */
export type Surface = { kind: "all" } | { kind: "none" } | { kind: "guide" } | { kind: "tool"; name: string };

const ALL: Surface = { kind: "all" };
const NONE: Surface = { kind: "none" };
const GUIDE: Surface = { kind: "guide" };

/** The methods the prompts, resources and completions answer: a server for them registers no tool. */
const GUIDE_METHODS = new Set([
  "prompts/list",
  "prompts/get",
  "resources/list",
  "resources/read",
  "resources/templates/list",
  "resources/subscribe",
  "resources/unsubscribe",
  "completion/complete",
]);

/**
 * The surface a parsed JSON-RPC body needs. Anything but one message of a
 * known shape gets every tool, so a batch, an `initialize`, a `tools/list` or
 * a call of an unknown or disabled tool is answered exactly as by a server
 * with every tool registered (the SDK's own "Tool ... not found" included).
 */
export function surfaceOf(body: unknown, toolsets: ReadonlySet<Toolset>): Surface {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return ALL;
  const { method, params, id } = body as { method?: unknown; params?: unknown; id?: unknown };
  if (typeof method !== "string") return ALL;
  if (method === "ping" || (id === undefined && method.startsWith("notifications/"))) return NONE;
  if (GUIDE_METHODS.has(method)) return GUIDE;
  if (method !== "tools/call" || typeof params !== "object" || params === null) return ALL;
  const name = (params as { name?: unknown }).name;
  const tool = typeof name === "string" ? compiledByName.get(name) : undefined;
  return tool && toolsets.has(tool.def.toolset) ? { kind: "tool", name: tool.def.name } : ALL;
}

/** The context one call aimed at, once its resolver has chosen it (for the context line of a refusal). */
interface Attempt {
  name?: string;
}

/**
 * The context resolver for one call. `need` is the tool's declared
 * `access`; `notes` collects what the reply must tell the user, such as a
 * fallback from a removed active context; `client` names the client for
 * co-visitation sessions.
 */
function resolver(scope: RequestScope, tool: string, need: Need, notes: string[], attempt: Attempt, client?: string): ToolContext["context"] {
  return async (argument) => {
    if (scope.pinned !== undefined && argument !== undefined && argument !== scope.pinned) {
      return fail("Invalid", `This endpoint is pinned to context "${scope.pinned}"; drop the context argument or connect to /mcp/${argument}.`);
    }
    let name = scope.pinned ?? argument;
    if (name === undefined) {
      const active = await activeContextOf(scope.env, scope.caller);
      if (!active.ok) return active;
      name = active.value.name;
      if (active.value.fellBackFrom !== undefined) {
        notes.push(`Note: your active context "${active.value.fellBackFrom}" was removed, so this call used "${name}". Pick another with set_active_context.`);
      }
    }
    attempt.name = name;
    const opened = await openContext(scope.env, scope.caller, name, need);
    if (!opened.ok) return opened;
    // A write to a new or removed name registers it: said, so a mistyped name does not quietly become a context. The default always exists.
    if (opened.value.revived) {
      notes.push(
        `Note: revived context "${name}": it had been removed, and this write registered it again, with the data it held. If you meant another one, list_contexts shows them, and remove_context unregisters this one.`,
      );
    } else if (opened.value.created && name !== DEFAULT_CONTEXT) {
      notes.push(
        `Note: created context "${name}": no context had this name, and this write registered it. If you meant another one, list_contexts shows them, and remove_context unregisters this one.`,
      );
    }
    const resolved: ResolvedContext = {
      name,
      stub: scope.env.MEMORY.getByName(name),
      meta: {
        caller: scope.caller.id,
        callerId: callerIdOf(scope.caller),
        ...(scope.caller.tokenId ? { tokenId: scope.caller.tokenId } : {}),
        tool,
        ...(scope.session ? { session: scope.session } : {}),
        ...(client ? { client } : {}),
      },
    };
    return resolved;
  };
}

/** Opens the request's context for a read outside any tool (the GET stream): the URL's, else the caller's active one. */
export const openForRead = (scope: RequestScope, label: string) => resolver(scope, label, "read", [], {})(undefined);

/** Adds the resolver's notes to a result, before its context line, which stays last. */
function withNotes(result: CallToolResult, notes: readonly string[]): CallToolResult {
  if (notes.length === 0) return result;
  const line = result.content.findLastIndex((c) => c.type === "text" && CONTEXT_LINE.test(c.text));
  const at = line < 0 ? result.content.length : line;
  const content = [...result.content];
  content.splice(at, 0, ...notes.map((text) => ({ type: "text" as const, text })));
  return { ...result, content };
}

const CONTEXT_LINE = /^\[context: [^\]]*\]$/;

/**
 * The context a call that never reached one would have acted on: the URL's,
 * else a valid `context` argument, else the caller's active context.
 */
async function intendedContext(scope: RequestScope, args: unknown): Promise<string> {
  if (scope.pinned !== undefined) return scope.pinned;
  const argument = (args as { context?: unknown } | undefined)?.context;
  if (typeof argument === "string" && CONTEXT_NAME_PATTERN.test(argument)) return argument;
  try {
    const active = await activeContextOf(scope.env, scope.caller);
    if (active.ok) return active.value.name;
  } catch {
    // The line then says so; the result itself carries the failure.
  }
  return "(unresolved)";
}

/**
 * Every result names its context, a refusal too: a tool's own answers carry
 * the line (`reply`, `failure` given a context); one that does not (bad
 * arguments, a context that could not be opened, an internal error) gets the
 * context the call aimed at. It is the result's last line; the resolver's
 * notes go before it (`withNotes`).
 */
async function withContextLine(result: CallToolResult, attempt: Attempt, scope: RequestScope, args: unknown): Promise<CallToolResult> {
  if (result.content.some((c) => c.type === "text" && CONTEXT_LINE.test(c.text))) return result;
  const name = attempt.name ?? (await intendedContext(scope, args));
  return { ...result, content: [...result.content, { type: "text", text: contextLine(name) }] };
}

/** zod's issues in the SDK's words: "path: message", comma-separated. */
const issues = (error: z.ZodError) => error.issues.map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message)).join(", ");

/** Logs an unexpected error with a short reference, the only part of it a client sees. */
function logInternal(where: string, error: unknown): string {
  const ref = errorRef();
  console.error(JSON.stringify({ event: "tool_error", tool: where, ref, ...describeThrown(error) }));
  return ref;
}

function internalError(tool: string, error: unknown): CallToolResult {
  return { isError: true, content: [{ type: "text", text: internalErrorText(logInternal(tool, error)) }] };
}

export function buildServer(scope: RequestScope, surface: Surface = ALL): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: instructions(scope.toolsets, scope.pinned) });
  const toolContext = (tool: string, need: Need, notes: string[] = [], attempt: Attempt = {}, extra?: ServerContext): ToolContext => ({
    env: scope.env,
    caller: scope.caller,
    tool,
    ...(scope.pinned !== undefined ? { pinned: scope.pinned } : {}),
    ...(scope.timing ? { timing: true } : {}),
    context: resolver(scope, tool, need, notes, attempt, clientName(extra, scope)),
  });

  const tools = surface.kind === "all" ? compiled : surface.kind === "tool" ? [compiledByName.get(surface.name) as Compiled] : [];
  for (const { def, input, listedInput, output, listedOutput } of tools) {
    if (!scope.toolsets.has(def.toolset)) continue;
    server.registerTool(
      def.name,
      {
        ...listedTitle(def),
        description: def.description,
        inputSchema: listedInput,
        ...(listedOutput ? { outputSchema: listedOutput } : {}),
        annotations: listedAnnotations(def.annotations),
      },
      async (args: Record<string, unknown>, extra: ServerContext) => {
        const notes: string[] = [];
        const attempt: Attempt = {};
        let result: CallToolResult;
        try {
          // Every string argument must be well-formed Unicode (src/text.ts), whatever field holds it.
          const malformed = malformedIn(args);
          if (malformed) {
            result = failure(fail("Invalid", `arguments for ${def.name}: ${describeMalformed(malformed)}`));
          } else {
            const parsed = await input.safeParseAsync(args);
            result = parsed.success
              ? await def.run(parsed.data as Parameters<ToolDef["run"]>[0], toolContext(def.name, def.access, notes, attempt, extra))
              : failure(fail("Invalid", `arguments for ${def.name}: ${issues(parsed.error)}`));
          }
          // The SDK checks a listed output schema itself; the unlisted ones are checked here, as strictly.
          if (!listedOutput && !result.isError) output.parse(result.structuredContent);
        } catch (error) {
          result = internalError(def.name, error);
        }
        return withNotes(await withContextLine(result, attempt, scope, args), notes);
      },
    );
  }

  if (surface.kind === "all" || surface.kind === "guide") {
    const guide: GuideScope = {
      toolsets: scope.toolsets,
      ...(scope.pinned !== undefined ? { pinned: scope.pinned } : {}),
      open: async (label) => {
        const notes: string[] = [];
        const resolved = await toolContext(label, "read", notes).context(undefined);
        if ("ok" in resolved) throw invalid(resolved);
        return { ...resolved, notes };
      },
    };
    registerResources(server, guide);
    if (servedKinds(scope.toolsets).length > 0) registerSubscriptions(server, guide, scope.caller, scope.mcpSession, scope.legacy === true);
    registerPrompts(server, guide);
    registerCompletions(server, guide);
  }
  return server;
}
