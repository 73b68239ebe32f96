/**
 * Domain failures. They cross the Durable Object RPC boundary as plain
 * values (`Outcome`), never as thrown errors, so their kind and message reach
 * the tool layer intact. Anything else thrown is an internal error: the
 * object that caught it logs it once, with a reference, and hands back only
 * the reference (`InternalFailure`), which is all a client is ever shown.
 */
export type ErrorKind = "NotFound" | "Invalid" | "Forbidden" | "Conflict" | "TooLarge";

export interface DomainFailure {
  ok: false;
  kind: ErrorKind;
  message: string;
}

/** An unexpected error, already logged where it happened under `ref`; it carries nothing else, so nothing else can leak. */
export interface InternalFailure {
  ok: false;
  kind: "Internal";
  ref: string;
  message: string;
}

export type Failure = DomainFailure | InternalFailure;

export type Outcome<T> = { ok: true; value: T } | Failure;

/** Thrown inside a transaction to roll it back; caught and turned into a DomainFailure. */
export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });

export const fail = (kind: ErrorKind, message: string): DomainFailure => ({ ok: false, kind, message });

/** A fresh reference that ties what a client is told to the one log line that says what went wrong. */
export const errorRef = (): string => crypto.randomUUID().slice(0, 8);

/** The failure a client gets for an internal error logged under `ref`. */
export const internalFailure = (ref: string): InternalFailure => ({ ok: false, kind: "Internal", ref, message: `Internal error (ref ${ref}).` });

/**
 * The value of an outcome whose failure has no answer of its own where it is read: an authentication
 * lookup, where reading a failure as "no such token" would answer 401 to a server fault. The failure is
 * thrown, so the edge answers 500; an `Internal` one was logged where it happened, and its message keeps
 * the reference.
 */
export function valueOrThrow<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new Error(outcome.message);
}

/** Runs `fn`; a DomainError becomes a failure value, anything else propagates. */
export function capture<T>(fn: () => T): Outcome<T> {
  try {
    return ok(fn());
  } catch (error) {
    if (error instanceof DomainError) return fail(error.kind, error.message);
    throw error;
  }
}

/** Formats a list of names for an error message, capped so the message stays short. */
export function listNames(names: readonly string[], max = 10): string {
  const shown = names.slice(0, max).map((n) => JSON.stringify(n));
  const more = names.length > max ? ` and ${names.length - max} more` : "";
  return shown.join(", ") + more;
}

/**
 * Something thrown, for a log line: an Error's message and stack, else the
 * value as JSON (an RPC may reject with a plain object). Only logs see it;
 * clients get a generic message and a reference.
 */
export function describeThrown(error: unknown): { error: string; stack?: string } {
  if (error instanceof Error) return error.stack ? { error: String(error), stack: error.stack } : { error: String(error) };
  try {
    return { error: typeof error === "string" ? error : (JSON.stringify(error) ?? String(error)) };
  } catch {
    return { error: String(error) };
  }
}
