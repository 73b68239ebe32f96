/**
 * Direct access to a context for tests: its Durable Object stub (so a test
 * can act as any caller over RPC), its export, and its history.
 */
import { env } from "cloudflare:test";
import type { CallMeta, MemoryContext } from "../../src/context/MemoryContext";
import type { Outcome } from "../../src/errors";
import type { ChangeInfo, HistoryQuery } from "../../src/history";
import { registryOf } from "../../src/registry/Registry";
import { workerFetch } from "./clients";

export const stubOf = (context: string) => env.MEMORY.getByName(context) as DurableObjectStub<MemoryContext>;

export const as = (caller: string, tool = "test"): CallMeta => ({ caller, callerId: caller, tool });

/** The value of a successful outcome; fails the test with the message otherwise. */
export function unwrap<T>(o: Outcome<T>): T {
  if (!o.ok) throw new Error(`expected success, got ${o.kind}: ${o.message}`);
  return o.value;
}

/**
 * Registers `context` as add_context would (a no-op when it is registered),
 * for a test that reads a context before any write through the Worker
 * registered it: reads never register one.
 */
export async function registered(context: string): Promise<string> {
  unwrap(await registryOf(env).useContext(context, true, "test"));
  return context;
}

/**
 * GET /api/contexts/<context>/export, optionally with history lines. The
 * context is registered first: tests write to it through its stub, which
 * the Registry does not see.
 */
export async function exportText(context: string, history = false): Promise<string> {
  await registered(context);
  const res = await workerFetch()(`http://localhost/api/contexts/${context}/export${history ? "?history=1" : ""}`);
  if (res.status !== 200) throw new Error(`export answered ${res.status}`);
  // Decoded by hand: workerd warns when .text() reads an x-ndjson body.
  return new TextDecoder().decode(await res.arrayBuffer());
}

/** Every change of a context (up to 200), newest first. */
export async function changesOf(context: string, query: Partial<HistoryQuery> = {}): Promise<ChangeInfo[]> {
  return unwrap(await stubOf(context).history({ limit: 200, ...query }, as("test"))).changes;
}
