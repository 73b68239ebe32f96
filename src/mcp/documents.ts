/**
 * What the documents tools share: input schemas for ids and content, and
 * the not-found answer their reads give (`Error: <id>: not found`, as
 * docs/documents.md has it for read_document). update_document, a write,
 * fails as every other tool does (`Error (NotFound): ...`).
 */
import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { DOCUMENT_ID_PATTERN, utf8Bytes } from "../documents/links";
import type { Failure, Outcome } from "../errors";
import { LIMITS } from "../limits";
import { CONTROL_EXCEPT_WHITESPACE } from "./schemas";
import { callContext, failure, type ResolvedContext, type ToolContext } from "./tool";

export const documentId = z
  .string()
  .regex(DOCUMENT_ID_PATTERN, `id must be 1-${LIMITS.documentId} characters of letters, digits, '_' and '-'`)
  .optional()
  .describe("Omitted: root");

export const documentContent = z
  .string()
  .refine((s) => utf8Bytes(s) <= LIMITS.documentBytes, `content must be at most ${LIMITS.documentBytes} bytes (256 KB, UTF-8)`)
  .refine((s) => !CONTROL_EXCEPT_WHITESPACE.test(s), "content must not contain control characters other than tab and line breaks")
  .describe("Whole new markdown");

/** A failure as a tool error; a missing document reads `Error: <id>: not found`. */
function documentFailure(f: Failure, context: string): CallToolResult {
  const result = failure(f, context);
  if (f.kind === "NotFound") result.content[0] = { type: "text", text: `Error: ${f.message}` };
  return result;
}

/** `callContext` for the documents tools: the same flow (RPC timing included), with their not-found answer. */
export const callDocuments = <T>(
  ctx: ToolContext,
  argument: string | undefined,
  call: (resolved: ResolvedContext) => Promise<Outcome<T>>,
  answer: (value: T, resolved: ResolvedContext) => CallToolResult,
): Promise<CallToolResult> => callContext(ctx, argument, call, answer, documentFailure);
