/**
 * The `registration` table (migrations/0020_registration.sql): what this
 * context's object was last told of its registration by the Registry. One
 * row at most; no row means nothing was pushed, which reads as registered
 * and writable.
 *
 * Only the facts live here. What the object admits because of them is
 * src/context/registration.ts; the priority evaluation reads the read-only
 * flag, since a read-only context is never pruned.
 */
import type { Db } from "./sql";

export type RegistrationRow = {
  /** The context's name, kept with a removal or purge for the refusal's message. */
  name: string | null;
  /** NULL while registered. */
  status: "removed" | "purged" | null;
  read_only: 0 | 1;
};

export const readRegistration = (db: Db): RegistrationRow | undefined => db.one<RegistrationRow>("SELECT name, status, read_only FROM registration WHERE id = 1");

export const isReadOnly = (db: Db): boolean => readRegistration(db)?.read_only === 1;

/** Registered: clears a removal or purge and sets the read-only flag. */
export function writeRegistered(db: Db, readOnly: boolean): void {
  db.run(
    `INSERT INTO registration (id, name, status, read_only) VALUES (1, NULL, NULL, ?)
     ON CONFLICT (id) DO UPDATE SET name = NULL, status = NULL, read_only = excluded.read_only`,
    readOnly ? 1 : 0,
  );
}

/** Removed or purged under `name`; the read-only flag stays as it was. */
export function writeUnregistered(db: Db, name: string, status: "removed" | "purged"): void {
  db.run(
    `INSERT INTO registration (id, name, status) VALUES (1, ?, ?)
     ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status`,
    name,
    status,
  );
}

/** Sets the read-only flag alone. */
export function writeReadOnly(db: Db, readOnly: boolean): void {
  db.run("INSERT INTO registration (id, read_only) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET read_only = excluded.read_only", readOnly ? 1 : 0);
}
