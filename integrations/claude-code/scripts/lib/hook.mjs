/**
 * What every hook script shares: the hook's JSON from stdin, the settings
 * from the environment, a deadline, and the promise that a hook never gets
 * in the way.
 *
 * ## Invariants
 * - The process exits 0, always, within DEADLINE_MS plus the exit itself:
 *   a hard timer ends it even if a request hangs.
 * - On failure it writes at most one line to stderr (`engram <hook>: why`)
 *   and nothing to stdout, so the prompt goes on unchanged.
 * - The token is only ever put in the Authorization header (lib/mcp.mjs);
 *   no message names it.
 */
import { connect, EngramError } from "./mcp.mjs";

export { EngramError };

/** The whole hook's time, stdin to exit; Claude Code's own timeout (hooks.json) is a looser backstop. */
export const DEADLINE_MS = 4000;
/** Past the deadline, the process is ended whatever is still pending. */
const HARD_EXIT_MS = 4600;
/** The most stdin read: a hook's input is small (a prompt, paths). */
const STDIN_MAX_BYTES = 1024 * 1024;

/** ENGRAM_URL and ENGRAM_TOKEN; an unset or blank token means no Authorization header. */
export function settingsFromEnv(env = process.env) {
  const url = (env.ENGRAM_URL ?? "").trim();
  const token = (env.ENGRAM_TOKEN ?? "").trim();
  return { url, token: token === "" ? undefined : token };
}

/** stdin as JSON ({} when empty), read until it ends or the signal aborts. */
async function readInput(signal) {
  const chunks = [];
  let size = 0;
  await new Promise((done) => {
    const stop = () => done();
    signal.addEventListener("abort", stop, { once: true });
    process.stdin.on("data", (chunk) => {
      size += chunk.length;
      if (size <= STDIN_MAX_BYTES) chunks.push(chunk);
    });
    process.stdin.on("end", stop);
    process.stdin.on("error", stop);
  });
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  try {
    const input = JSON.parse(text);
    return input && typeof input === "object" ? input : {};
  } catch {
    throw new EngramError("the hook input on stdin is not JSON");
  }
}

function exit(stdout, stderr) {
  if (stderr) process.stderr.write(`${stderr.replace(/\s+/g, " ").trim()}\n`);
  if (stdout) process.stdout.write(stdout, () => process.exit(0));
  else process.exit(0);
}

/**
 * Runs `handler(input, { client, signal, settings })` as the hook `name`.
 * `client()` connects on first use. The handler returns what to print on
 * stdout (a string), or nothing.
 */
export function runHook(name, handler) {
  const hard = setTimeout(() => exit(undefined, `engram ${name}: gave up after ${HARD_EXIT_MS} ms`), HARD_EXIT_MS);
  hard.unref();
  const signal = AbortSignal.timeout(DEADLINE_MS);
  const settings = settingsFromEnv();
  let connected;
  const client = () => (connected ??= connect({ url: settings.url, token: settings.token, signal }));
  (async () => {
    const input = await readInput(signal);
    if (!settings.url) throw new EngramError("ENGRAM_URL is not set; nothing to do");
    return handler(input, { client, signal, settings });
  })().then(
    (stdout) => exit(typeof stdout === "string" ? stdout : undefined),
    (error) => {
      const why = error instanceof EngramError ? error.message : `unexpected ${error?.name ?? "error"}: ${error?.message ?? error}`;
      exit(undefined, `engram ${name}: ${redactToken(why, settings.token)}`);
    },
  );
}

/** `text` without `token` in it: a last guard, since no message is built from the token. */
function redactToken(text, token) {
  return token ? text.split(token).join("[token]") : text;
}

/** The JSON Claude Code reads from a hook's stdout to add context for the model. */
export function additionalContext(hookEventName, text) {
  return `${JSON.stringify({ hookSpecificOutput: { hookEventName, additionalContext: text } })}\n`;
}

/** `text` cut to at most `max` characters, on a line break when one is near. */
export function clipText(text, max) {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 2);
  const line = cut.lastIndexOf("\n");
  return `${line > max * 0.8 ? cut.slice(0, line) : cut}\n…`;
}
