/**
 * Looking inside a context's documents from a test: a snapshot of every row
 * (to prove a rejected call wrote nothing) and the tree invariant (a
 * document's [[links]] are exactly its children, and the index matches).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { parseLinks } from "../../src/documents/links";
import type { TestClient } from "./clients";

export interface DocRow extends Record<string, SqlStorageValue> {
  id: string;
  parent_id: string | null;
  content: string;
  updated_at: number;
}

/** Runs `fn` on the context's database inside its object. */
export function withDb<T>(context: string, fn: (db: Db) => T): Promise<T> {
  const stub = env.MEMORY.getByName(context) as DurableObjectStub<MemoryContext>;
  return runInDurableObject(stub, (_instance: MemoryContext, state) => fn(new Db(state.storage.sql)));
}

/** Every document row and every index entry, in a stable order. */
export const snapshot = (context: string) =>
  withDb(context, (db) => ({
    documents: db.all<DocRow>("SELECT id, parent_id, content, updated_at FROM documents ORDER BY id"),
    indexed: db.all("SELECT rowid, content FROM documents_fts ORDER BY rowid"),
  }));

/** Asserts the tree invariant: links are exactly children, everything reaches the root, the FTS index is intact. */
export async function expectTreeIntact(context: string): Promise<DocRow[]> {
  const rows = await withDb(context, (db) => {
    db.run("INSERT INTO documents_fts (documents_fts, rank) VALUES ('integrity-check', 1)");
    return db.all<DocRow>("SELECT id, parent_id, content, updated_at FROM documents ORDER BY id");
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const doc of rows) {
    const children = rows.filter((r) => r.parent_id === doc.id).map((r) => r.id);
    expect(children.sort(), `children of ${doc.id}`).toEqual(parseLinks(doc.content).ids.sort());
    let at: DocRow | undefined = doc;
    for (let hops = 0; at && at.parent_id !== null; hops++) {
      expect(hops, `${doc.id} reaches the root`).toBeLessThan(rows.length);
      at = byId.get(at.parent_id);
    }
    expect(at?.id, `${doc.id} reaches the root`).toBe("root");
  }
  return rows;
}

/** Calls update_document and expects success; returns the response text without the context line. */
export async function update(c: TestClient, id: string, content: string): Promise<string> {
  const r = await c.call("update_document", { id, content });
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return r.content[0]?.text ?? "";
}

/** The natural-growth example from the issue, built step by step. */
export async function growNaturally(c: TestClient): Promise<void> {
  await update(c, "root", "# メモ帳\n\n- [[project_overview]]\n- [[tech_decisions]]\n- [[current_tasks]]\n");
  await update(c, "current_tasks", "# Current tasks\n\nDesign first: [[architecture]]\n");
  await update(c, "architecture", "# Architecture\n\n- [[db_schema]]\n- [[service_layer]]\n");
}
