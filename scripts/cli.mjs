/**
 * What the import, export and admin scripts share: flags, the server's address
 * and token, and one way to fail. Every failure is one line on stderr and an
 * exit code, never a stack trace:
 *
 *   0  done
 *   1  the file, the server or the answer failed (unreadable file, server not
 *      reachable, HTTP error, interrupted download)
 *   2  usage error (unknown flag, missing argument, bad --url)
 *   3  import only: done, but some lines were rejected (listed in the report)
 */
import { parseArgs } from "node:util";

const DEFAULT_URL = "http://127.0.0.1:8787";

/** A failure the user caused on the command line: the message, then the usage text, exit 2. */
export class UsageError extends Error {}
/** A failure with a message that says it all: exit 1. */
export class Failure extends Error {}

const COMMON = { url: { type: "string" }, token: { type: "string" }, context: { type: "string" }, help: { type: "boolean", short: "h" } };

/** Flags and positionals, strictly: an unknown flag is a usage error, not ignored. */
export function parseCommandLine(argv, options) {
  try {
    return parseArgs({ args: argv, options: { ...COMMON, ...options }, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error.message);
  }
}

/** The server's base URL: --url, else $ENGRAM_URL (an empty one counts as unset), else the `npm start` default. */
export function serverBase(values) {
  const base = (values.url ?? (process.env.ENGRAM_URL || DEFAULT_URL)).replace(/\/+$/, "");
  try {
    const url = new URL(base);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new UsageError(`--url ${JSON.stringify(base)}: expected an http:// or https:// address, e.g. ${DEFAULT_URL}`);
  }
  return base;
}

/** Base URL, headers and context from the flags, else $ENGRAM_URL, $ENGRAM_TOKEN, $ENGRAM_CONTEXT. */
export function endpoint(values) {
  const base = serverBase(values);
  const token = values.token ?? process.env.ENGRAM_TOKEN;
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  const context = values.context ?? process.env.ENGRAM_CONTEXT ?? "default";
  return { base, headers, context };
}

/** fetch, with "cannot reach the server" as a Failure instead of undici's TypeError. */
export async function request(base, path, init) {
  try {
    return await fetch(`${base}${path}`, init);
  } catch (error) {
    const reason = error?.cause?.message ?? error?.message ?? String(error);
    // The address is named, with how to give another: `npm start -- --port 8790` serves where the default does not look.
    throw new Failure(
      base === DEFAULT_URL
        ? `Cannot reach the server at ${base} (the default): ${reason}. Is \`npm start\` running? For a server elsewhere (another --port), pass --url or set ENGRAM_URL.`
        : `Cannot reach the server at ${base}: ${reason}. Is the server running there? --url or ENGRAM_URL gives another address.`,
    );
  }
}

/** "HTTP 403: <the server's message>" from an error answer. */
export async function httpError(res) {
  const text = await res.text().catch(() => "");
  let message = text.trim().split("\n")[0] ?? "";
  try {
    const body = JSON.parse(text);
    if (typeof body?.message === "string") message = body.message;
  } catch {}
  return `HTTP ${res.status}${message ? `: ${message.slice(0, 500)}` : ""}`;
}

const FILE_REASONS = {
  ENOENT: "no such file or directory",
  EISDIR: "it is a directory",
  EACCES: "permission denied",
  ENOTDIR: "a part of the path is not a directory",
};

/** A file system error as "<reason>", without Node's syscall prefix. */
export const fileReason = (error) => FILE_REASONS[error?.code] ?? error?.message ?? String(error);

/** Runs `main`; its number is the exit code, and any failure becomes one line on stderr. */
export function run(main, usage) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      if (error instanceof UsageError) {
        console.error(`${error.message}\n\n${usage}`);
        process.exit(2);
      }
      console.error(error instanceof Failure ? error.message : `Unexpected error: ${error?.message ?? String(error)}`);
      process.exit(1);
    },
  );
}
