/**
 * What a context's own object knows of its registration, so a write is
 * checked where it lands and never needs the Registry on its way in.
 *
 * The Registry stays the source of truth. It pushes each change here in the
 * operation that makes it (src/registry/Registry.ts): a removal before it is
 * recorded, a registration after; the contexts API pushes the read-only flag
 * the same way. The facts are kept in src/storage/registration.ts. A purge marks the wiped
 * object purged itself. The runner (./runner.ts) asks `admit` inside every
 * call's transaction:
 *
 * - a write is refused in a read-only, removed or purged context;
 * - a purged object refuses reads too, until a registration is pushed.
 *
 * An object never told anything (a context older than these pushes, or a
 * test's direct stub) admits everything: every change that restricts a
 * context pushes here first.
 */
import { DomainError } from "../errors";
import { readRegistration, writeReadOnly, writeRegistered, writeUnregistered } from "../storage/registration";
import type { Db } from "../storage/sql";

/** A registration fact as the Registry pushes it. */
export type RegistrationPush = { name: string; status: "registered"; readOnly: boolean } | { name: string; status: "removed" | "purged" };

// The words of src/registry/contexts.ts's noSuchContext: a purged context's data is gone, a removed one's is kept.
const LIST = "list_contexts shows the contexts you can use";

/** Records a pushed fact, and returns it: a registration clears a removal or purge and sets the read-only flag. */
export function applyRegistration(db: Db, push: RegistrationPush): RegistrationPush {
  if (push.status === "registered") writeRegistered(db, push.readOnly);
  else writeUnregistered(db, push.name, push.status);
  return push;
}

/** Records the read-only flag the contexts API pushes, and returns it: a read-only context refuses writes and is never pruned. */
export function applyReadOnly(db: Db, readOnly: boolean): { readOnly: boolean } {
  writeReadOnly(db, readOnly);
  return { readOnly };
}

/** Throws the refusal for a call of `kind` this object must not serve; reads pass unless it was purged. */
export function admit(db: Db, kind: "read" | "write"): void {
  const stored = readRegistration(db);
  if (stored?.status === "purged") {
    throw new DomainError("NotFound", `Context ${JSON.stringify(stored.name)} does not exist (it was purged). ${LIST}; add_context creates one.`);
  }
  if (kind === "read") return;
  if (stored?.status === "removed")
    throw new DomainError("NotFound", `Context ${JSON.stringify(stored.name)} was removed. ${LIST}; add_context brings it back with its data.`);
  if (stored?.read_only === 1) {
    throw new DomainError("Forbidden", "This context is read-only, and this call writes. Reads work.");
  }
}
