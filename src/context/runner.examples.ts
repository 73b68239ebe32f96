/**
 * `Runner.run` in use, one call of each shape. The type checker compiles this file (`npx tsc --noEmit`); nothing
 * imports it, so it is never bundled into the Worker. Every RPC method of the MemoryContext object is one such line.
 */
import type { Outcome } from "../errors";
import * as graph from "../graph/store";
import type { Entity, EntityInput } from "../graph/types";
import { itemKey } from "../items";
import type { CallMeta } from "../storage/meta";
import type { Related, Runner } from "./runner";

/** A read that reports nothing: its value alone. The object's own reads pass no caller. */
export function countGraph(runner: Runner): Outcome<{ entities: number; relations: number; observations: number }> {
  return runner.run(undefined, "read", ({ db }) => ({ value: graph.graphCounts(db) }));
}

/** A read that reports what it retrieved: the access hook counts the opens, and the value comes back with related items. */
export function openEntities(runner: Runner, names: string[], meta: CallMeta): Outcome<{ entities: Entity[] } & Related> {
  return runner.run(meta, "read", ({ db }) => {
    const { entities } = graph.openNodes(db, names);
    return { value: { entities }, effects: { accesses: entities.map((e) => ({ item: itemKey.entity(e.name), kind: "open" })), removed: [], moved: [] } };
  });
}

/** A write: the domain function notes an inverse op per row it changes, and the change record commits with the rows. */
export function createEntities(runner: Runner, entities: EntityInput[], meta: CallMeta): Outcome<Entity[]> {
  return runner.run(meta, "write", (w) => ({ value: graph.createEntities(w, entities) }));
}
