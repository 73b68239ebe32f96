/**
 * What prompts and resources share (./resources.ts, ./prompts.ts): the
 * context they read, opened like a read tool's (the URL's, else the caller's
 * active one; a read grant required), and how their failures reach the
 * client. A domain failure (an unknown or forbidden context, a bad name) is
 * the caller's to fix: Invalid Params with its message, as the SDK answers
 * an unknown prompt. A missing item is the SDK's ResourceNotFoundError.
 * Anything else is logged and answered as an internal error with a
 * reference, never its message.
 */
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";
import { describeThrown, errorRef, type Failure, type Outcome } from "../errors";
import type { ItemKind } from "../items";
import { internalErrorText, type ResolvedContext, type Toolset } from "./tool";

/** A context opened for a read, with what the reader must be told (a removed active context, as a tool's reply says). */
export interface OpenedContext extends ResolvedContext {
  notes: readonly string[];
}

export interface GuideScope {
  toolsets: ReadonlySet<Toolset>;
  pinned?: string;
  /** Opens the context for a read, labelled in CallMeta as `label`; throws Invalid Params when it cannot. */
  open(label: string): Promise<OpenedContext>;
}

/** The notes as lines to put before a text, or nothing. */
export const noteLines = (opened: OpenedContext) => (opened.notes.length ? `${opened.notes.join("\n")}\n` : "");

/** The item kinds a connection's toolsets serve. */
export function servedKinds(toolsets: ReadonlySet<Toolset>): ItemKind[] {
  const kinds: ItemKind[] = [];
  if (toolsets.has("graph")) kinds.push("entity");
  if (toolsets.has("files")) kinds.push("file");
  if (toolsets.has("documents")) kinds.push("doc");
  return kinds;
}

/** A failure as its protocol error: the caller's to fix (Invalid Params), or an internal one shown by its logged reference alone. */
export const invalid = (f: Failure | string) =>
  typeof f !== "string" && f.kind === "Internal"
    ? new ProtocolError(ProtocolErrorCode.InternalError, internalErrorText(f.ref))
    : new ProtocolError(ProtocolErrorCode.InvalidParams, typeof f === "string" ? f : f.message);

/** The value of an outcome, or the protocol error for its failure (`uri`: a NotFound is that resource's absence). */
export function unwrapped<T>(o: Outcome<T>, uri?: string): T {
  if (o.ok) return o.value;
  if (uri !== undefined && o.kind === "NotFound") throw new ResourceNotFoundError(uri, `Resource not found: ${uri} (${o.message})`);
  throw invalid(o);
}

/** Runs a prompt, resource or completion handler; an unexpected error becomes an internal error with a reference. */
export async function runGuarded<T>(label: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    const ref = errorRef();
    console.error(JSON.stringify({ event: "guide_error", label, ref, ...describeThrown(error) }));
    throw new ProtocolError(ProtocolErrorCode.InternalError, internalErrorText(ref));
  }
}

/** Percent-encodes a name for a URI: every segment of a path (`keepSlashes`), else the whole name. */
const encodeName = (name: string, keepSlashes = false) => (keepSlashes ? name.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(name));

/** A template variable decoded, or undefined for a malformed escape. */
export function decodeName(value: string | string[] | undefined): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

export const resourceUri: Readonly<Record<ItemKind, (name: string) => string>> = {
  entity: (name) => `memory://entity/${encodeName(name)}`,
  file: (path) => `memory://file/${encodeName(path, true)}`,
  doc: (id) => `memory://doc/${encodeName(id)}`,
};
