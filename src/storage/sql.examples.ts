/**
 * `Db.packed` and `Db.tuples` in use. The type checker compiles this file (`npx tsc --noEmit`); nothing imports it,
 * so it is never bundled into the Worker.
 */
import { type Db, sqlLimit } from "./sql";

/** Many short rows on a hot read path: one JSON text from SQLite instead of a row object per row. */
export function entityNames(db: Db, type: string, limit: number): { id: number; name: string }[] {
  return db.packed<{ id: number; name: string }>(["id", "name"], `SELECT id, name FROM entities WHERE entity_type = ? LIMIT ${sqlLimit(limit)}`, [type], "id");
}

/** The same rows as arrays, in the order of the columns, for the largest results. */
export function entityIds(db: Db, limit: number): [id: number, name: string][] {
  return db.tuples<[id: number, name: string]>(["id", "name"], `SELECT id, name FROM entities LIMIT ${sqlLimit(limit)}`);
}
