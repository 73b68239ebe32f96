/**
 * Helpers for the priority tests: contexts with a capacity (through the admin
 * API, as people set them), the object's clock, its priority columns set
 * directly (as access tracking and mark_important would), and its alarm.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db, type SqlValue } from "../../src/storage/sql";
import { DAY_MS } from "../../src/priority/model";
import { expect } from "vitest";
import { connectV2, freshContext, text, workerFetch, type TestClient } from "./clients";
import { stubOf } from "./context";

export { DAY_MS };

type Stub = DurableObjectStub<MemoryContext>;

/** Calls the admin REST API of the open local deployment (everyone is the administrator). */
export function adminApi(path: string, method = "GET", json?: unknown): Promise<Response> {
  return workerFetch()(`http://localhost/api${path}`, {
    method,
    ...(json !== undefined ? { body: JSON.stringify(json), headers: { "Content-Type": "application/json" } } : {}),
  });
}

export const setClock = (stub: Stub, at: number) =>
  runInDurableObject(stub, (instance: MemoryContext) => {
    instance.now = () => at;
  });

/** A registered context with `capacity`, its clock at `at`. */
export async function contextWithCapacity(capacity: Record<string, number> | null, at: number, prefix = "prio"): Promise<{ name: string; stub: Stub }> {
  const name = freshContext(prefix);
  const stub = stubOf(name);
  await setClock(stub, at);
  const res = await adminApi("/contexts", "POST", { name, ...(capacity ? { capacity } : {}) });
  if (res.status !== 201) throw new Error(`create context failed: ${res.status} ${await res.text()}`);
  return { name, stub };
}

/** Runs SQL in the object (sets priority columns as tracking or marking would). */
export const sql = (stub: Stub, query: string, ...params: SqlValue[]) =>
  runInDurableObject(stub, (_i, state) => {
    new Db(state.storage.sql).run(query, ...params);
  });

export const rows = <T extends Record<string, SqlStorageValue>>(stub: Stub, query: string, ...params: SqlValue[]) =>
  runInDurableObject(stub, (_i, state) => new Db(state.storage.sql).all<T>(query, ...params));

export const alarmAt = (stub: Stub) => runInDurableObject(stub, (_i, state) => state.storage.getAlarm());

/** Runs the object's alarm at `at` (its clock moved there first). */
export async function runAlarmAt(stub: Stub, at: number): Promise<boolean> {
  await setClock(stub, at);
  return runDurableObjectAlarm(stub);
}

/** Marks every item except `keep` important, so only those can be pruned. */
export const onlyPrunable = async (stub: Stub, keep: { entities?: string[]; files?: string[]; docs?: string[] }) => {
  const list = (xs: string[] | undefined) => (xs ?? []).map((x) => `'${x}'`).join(", ") || "''";
  await sql(stub, `UPDATE entities SET important = CASE WHEN name IN (${list(keep.entities)}) THEN 0 ELSE 1 END`);
  await sql(stub, `UPDATE files SET important = CASE WHEN path IN (${list(keep.files)}) THEN 0 ELSE 1 END`);
  await sql(stub, `UPDATE documents SET important = CASE WHEN id IN (${list(keep.docs)}) THEN 0 ELSE 1 END`);
};

/**
 * Like `onlyPrunable`, but protects every other item by a use "just now"
 * (the evaluation's grace period after an access) instead of a mark: a mark
 * would also protect the kept items' neighbours (a mark protects what hangs
 * on it), which tests of relations and parents must prune. The kept items
 * lose any earlier access so they stay candidates.
 */
export const onlyPrunableByUse = async (stub: Stub, keep: { entities?: string[]; files?: string[]; docs?: string[] }) => {
  const list = (xs: string[] | undefined) => (xs ?? []).map((x) => `'${x}'`).join(", ") || "''";
  const JUST_NOW = 8.64e15; // the latest time a Date holds: within the grace period of any test clock
  await sql(stub, `UPDATE entities SET important = 0, last_accessed_at = CASE WHEN name IN (${list(keep.entities)}) THEN NULL ELSE ${JUST_NOW} END`);
  await sql(stub, `UPDATE files SET important = 0, last_accessed_at = CASE WHEN path IN (${list(keep.files)}) THEN NULL ELSE ${JUST_NOW} END`);
  await sql(stub, `UPDATE documents SET important = 0, last_accessed_at = CASE WHEN id IN (${list(keep.docs)}) THEN NULL ELSE ${JUST_NOW} END`);
};

/** Calls a tool that must succeed; its structuredContent. */
export async function ok(c: TestClient, tool: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const r = await c.call(tool, args);
  expect(r.isError, `${tool}: ${text(r)}`).toBeFalsy();
  return r.structuredContent ?? {};
}

/** A fresh context with a total capacity, its clock at `t0`, and a v2 client pinned to it. */
export async function prunableContext(capacity: number, prefix: string) {
  const t0 = Date.now();
  const { name, stub } = await contextWithCapacity({ total: capacity }, t0, prefix);
  const c = await connectV2({ url: `http://localhost/mcp/${name}` });
  return { t0, name, stub, c };
}
