/**
 * How a tool is declared and answered. One tool per file under src/mcp/tools/
 * exports a `ToolDef`; src/mcp/server.ts registers the enabled ones on a
 * fresh McpServer per request.
 *
 * A handler resolves its memory context through `ToolContext.context()` and
 * calls the MemoryContext object over RPC; it never touches SQL.
 */
import type { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Failure, Outcome } from "../errors";
import type { CallMeta, MemoryContext } from "../context/MemoryContext";
import type { Need } from "../auth/access";
import type { Caller } from "../auth/caller";

/** The toolsets, each holding at least one tool (`?tools=` and MEMORY_TOOLSETS name them). */
export const TOOLSETS = ["graph", "files", "documents", "priority", "contexts", "history"] as const;
export type Toolset = (typeof TOOLSETS)[number];

export interface ResolvedContext {
  name: string;
  stub: DurableObjectStub<MemoryContext>;
  meta: CallMeta;
}

export interface ToolContext {
  env: Env;
  /** Whether the request asked for the RPC time in each result's `_meta` (the `Engram-Timing: 1` header). */
  timing?: boolean;
  caller: Caller;
  /** The tool being called, recorded in CallMeta. */
  tool: string;
  /** The context named in the URL (/mcp/<context>), if any. */
  pinned?: string;
  /**
   * Resolves and authorizes the context a call acts on: the URL's, else the
   * `context` argument, else the caller's active context, else the default.
   * A tool whose `access` is "write" is refused here on a read grant or a
   * read-only context, so no tool checks that itself.
   */
  context(argument: string | undefined): Promise<ResolvedContext | Failure>;
}

/**
 * What a tool tells clients about its effects (MCP tool annotations). Every
 * tool takes one of the presets below rather than spelling out four flags.
 * A preset holds all four; tools/list states those a client cannot infer
 * (`listedAnnotations` in server.ts), because the protocol's defaults for
 * missing ones (destructive, open-world) are the opposite of what most of
 * these tools do: none reaches outside its memory context.
 */
export interface Annotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

/** Reads only; the same call answers the same while nothing else writes. */
export const READ: Annotations = Object.freeze({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
/** Adds (or moves) without losing anything; repeating it is an error or adds again. */
export const ADDITIVE: Annotations = Object.freeze({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
/** Sets a state without losing anything; repeating it changes nothing more (a mark, the active context, a restore). */
export const SETS: Annotations = Object.freeze({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
/** May delete or overwrite; repeating it with the same arguments changes nothing more. */
export const DESTRUCTIVE: Annotations = Object.freeze({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
/** May delete or overwrite, and repeating it does more (the next undo, a second edit). */
export const DESTRUCTIVE_REPEATABLE: Annotations = Object.freeze({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });

export interface ToolDef<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  toolset: Toolset;
  /** For people; tools/list leaves out one that only restates the name (`listedTitle` in server.ts). */
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: Annotations;
  /**
   * What the tool needs of the context it acts on: "write" is refused on a
   * read grant or a read-only context before the tool runs. It is declared,
   * never derived from `annotations`, which are hints for clients to show.
   * The tools that manage contexts authorize against the caller's grants
   * themselves; theirs says whether they change a context's registration.
   */
  access: Need;
  /**
   * True for the official server's nine graph tools: tools/list shows their
   * output schema, which clients written for that server may validate. The
   * others' output schemas are checked by the server on every result but not
   * listed: a tools/list lands in every conversation's context, and their
   * answers are read as text (docs/ describes them per toolset).
   */
  listOutputSchema?: true;
  /**
   * True for the tools that manage contexts themselves (toolset "contexts"):
   * they take no `context` argument and authorize against the caller's grants.
   */
  managesContexts?: boolean;
  run(args: z.infer<z.ZodObject<I>> & { context?: string }, ctx: ToolContext): Promise<CallToolResult>;
}

/** Declares a tool with its argument types inferred from `input`; a whole tool is in ./tool.examples.ts. */
export const defineTool = <I extends z.ZodRawShape, O extends z.ZodRawShape>(def: ToolDef<I, O>): ToolDef<I, O> => def;

export const contextLine = (name: string) => `[context: ${name}]`;

/** A successful result: compact JSON (or the given text) plus structuredContent, and the context line. */
export function reply(context: string, structured: Record<string, unknown>, text?: string): CallToolResult {
  return {
    content: [
      { type: "text", text: text ?? JSON.stringify(structured) },
      { type: "text", text: contextLine(context) },
    ],
    structuredContent: structured,
  };
}

/** What a client is told of an internal error logged under `ref`: the reference, and what to do. */
export const internalErrorText = (ref: string) => `Internal error (ref ${ref}). The call may not have completed; check with a read tool before retrying.`;

/** A domain failure as a tool error a model can act on; an internal one as its reference alone. */
export function failure(f: Failure, context?: string): CallToolResult {
  const text = f.kind === "Internal" ? internalErrorText(f.ref) : `Error (${f.kind}): ${f.message}`;
  return {
    isError: true,
    content: context
      ? [
          { type: "text", text },
          { type: "text", text: contextLine(context) },
        ]
      : [{ type: "text", text }],
  };
}

/**
 * Result `_meta` key carrying the milliseconds spent in the awaited RPC to
 * the object (the engine's own time plus the RPC hop), for `npm run bench`.
 * It is measured here because inside the object the clock does not advance
 * during synchronous code; in the Worker performance.now() advances across I/O.
 * Only a request carrying TIMING_HEADER: 1 gets it: it is a benchmark's
 * field, not part of an answer.
 */
export const RPC_MS_META = "engram/rpcMs";
/** The request header a benchmark sends (value "1") to get RPC_MS_META in each result. */
export const TIMING_HEADER = "Engram-Timing";

/**
 * The usual shape of a tool body: resolve the context, call the object,
 * answer with its value or its failure (`fail` lets a toolset word its
 * failures its own way, as the documents tools do).
 */
export async function callContext<T>(
  ctx: ToolContext,
  argument: string | undefined,
  call: (resolved: ResolvedContext) => Promise<Outcome<T>>,
  answer: (value: T, resolved: ResolvedContext) => CallToolResult,
  fail: (f: Failure, context: string) => CallToolResult = failure,
): Promise<CallToolResult> {
  const resolved = await ctx.context(argument);
  if ("ok" in resolved) return failure(resolved);
  const started = performance.now();
  const outcome = await call(resolved);
  const rpcMs = performance.now() - started;
  const result = outcome.ok ? answer(outcome.value, resolved) : fail(outcome, resolved.name);
  return ctx.timing ? { ...result, _meta: { ...result._meta, [RPC_MS_META]: rpcMs } } : result;
}
