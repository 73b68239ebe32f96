/**
 * Direct access to a context for tests: its Durable Object stub (so a test
 * can act as any caller over RPC), its export, and its history.
 */
import { env } from "cloudflare:test";
import type { CallMeta, MemoryContext } from "../../src/context/MemoryContext";
import type { Outcome } from "../../src/errors";
import type { ChangeInfo, HistoryQuery } from "../../src/history";
import { workerFetch } from "./clients";

export const stubOf = (context: string) => env.MEMORY.getByName(context) as DurableObjectStub<MemoryContext>;

export const as = (caller: string, tool = "test"): CallMeta => ({ caller, tool });

/** The value of a successful outcome; fails the test with the message otherwise. */
export function unwrap<T>(o: Outcome<T>): T {
  if (!o.ok) throw new Error(`expected success, got ${o.kind}: ${o.message}`);
  return o.value;
}

/** GET /api/contexts/<context>/export, optionally with history lines. */
export async function exportText(context: string, history = false): Promise<string> {
  const res = await workerFetch()(`http://localhost/api/contexts/${context}/export${history ? "?history=1" : ""}`);
  if (res.status !== 200) throw new Error(`export answered ${res.status}`);
  // Decoded by hand: workerd warns when .text() reads an x-ndjson body.
  return new TextDecoder().decode(await res.arrayBuffer());
}

/** Every change of a context (up to 200), newest first. */
export async function changesOf(context: string, query: Partial<HistoryQuery> = {}): Promise<ChangeInfo[]> {
  return unwrap(await stubOf(context).history({ limit: 200, ...query }, as("test"))).changes;
}
