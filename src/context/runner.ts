/**
 * The one runner of a MemoryContext's calls: `run(meta, kind, fn)`. Every
 * RPC method is a line over it, so how a call meets the database is decided
 * here once.
 *
 * ## Kinds
 * - `read`: one `transactionSync`; earlier searches' pending hits are
 *   written first (./pending.ts).
 * - `write`: the same, and `fn` writes through a RecordingScope, so the
 *   call's change record is appended in the same transaction (src/history);
 *   the ends of relations it touched are re-counted, or queued for the
 *   alarm after a bulk write (src/priority/queue.ts). Upkeep hears of the
 *   change, of the search documents written and of the clusters queued.
 * - `search`: a read that neither writes nor waits for pending hits; its own
 *   hits (`effects.accesses`) join them, to be written after the reply.
 *   read_graph runs as one too: a listing with no hits, it leaves earlier
 *   hits pending rather than wait for their commit.
 * - `own`: a read's transaction for what is not a caller's call: the facts
 *   pushed to the object (its registration, the read-only flag, the
 *   capacity), which may write them, and the graph counts tests check a
 *   purge with. It is never refused: a pushed registration is how a purged
 *   object learns to admit calls again.
 *
 * ## Admission
 * Before `fn`, inside the same transaction, the object checks what it was
 * told of its registration (./registration.ts): a write into a read-only,
 * removed or purged context, and any read of a purged one (a tool's, or an
 * API route's, which has no caller), are refused here, whatever the Worker's
 * caches believed.
 *
 * ## Effects
 * `fn` returns `{ value, effects }`: what the call did to items. A read or a
 * write that reports effects hands them to the access hook (./access.ts) in
 * its own transaction, and its value comes back with the items related to
 * what it retrieved (`related`). A call that reports none comes back as its
 * value alone.
 *
 * ## Atomicity
 * The search indexes are flushed before each transaction commits, so they
 * always describe the rows they index. A DomainError rolls everything back
 * and comes back as a failure value (src/errors.ts).
 *
 * ## Internal errors
 * Anything else thrown (a SQL fault, a bug) rolls back too, and is logged
 * here once as one `internal_error` line with a reference; the call comes
 * back as an `Internal` failure carrying only that reference, so the RPC
 * never throws and nothing about the fault reaches a client.
 */
import { capture, describeThrown, errorRef, internalFailure, type Outcome } from "../errors";
import { ChangeRecorder, type InverseRegistry, type RecordingScope } from "../history";
import type { Access, ItemEffects } from "../items";
import type { ModelOptions } from "../priority/model";
import { relationWatch } from "../priority/queue";
import { modelOptions } from "../priority/weights";
import { flushSearchIndex } from "../search/indexer";
import type { Settings } from "../settings";
import type { CallMeta } from "../storage/meta";
import type { Db } from "../storage/sql";
import { accessOptions, itemSink, reportEffects, type AccessOptions, type RelatedItem } from "./access";
import type { PendingAccesses } from "./pending";
import { admit } from "./registration";
import type { Upkeep } from "./upkeep";

export type CallKind = "read" | "write" | "search" | "own";

/** What a read or a search sees: the database and the call's time. */
export interface ReadScope {
  db: Db;
  now: number;
}

/** A call's value and what it did to items. */
export interface Ran<T> {
  value: T;
  effects?: ItemEffects;
}

export type Related = { related: RelatedItem[] };

/** What the runner needs of its object; `now` and `config` are read at each call, so tests can replace them. */
export interface RunnerHost {
  db: Db;
  transaction: <T>(fn: () => T) => T;
  now: () => number;
  config: () => Settings;
  pending: PendingAccesses;
  upkeep: Upkeep;
  inverses: InverseRegistry;
  /** Told after each write that recorded a change has committed (the webhooks' kick); it must not wait or throw. */
  committed?: () => void;
}

type ReadCall = (s: ReadScope) => Ran<unknown>;
type WriteCall = (w: RecordingScope) => Ran<unknown>;

/** The overloads of `run` pair each kind with its scope; this recovers the pairing. */
const readsOnly = (kind: CallKind, _fn: ReadCall | WriteCall): _fn is ReadCall => kind !== "write";

/** The caller of a call that records or reports something (the overloads leave it out only for plain reads). */
function requireMeta(meta: CallMeta | undefined): CallMeta {
  if (!meta) throw new Error("a call that writes, searches or reports effects needs its caller");
  return meta;
}

export class Runner {
  constructor(private readonly host: RunnerHost) {}

  /**
   * A read or a write that reports effects: its value comes back with the related items. One call of each
   * shape is in ./runner.examples.ts.
   */
  run<T extends object>(meta: CallMeta, kind: "read", fn: (s: ReadScope) => Ran<T> & { effects: ItemEffects }): Outcome<T & Related>;
  run<T extends object>(meta: CallMeta, kind: "write", fn: (w: RecordingScope) => Ran<T> & { effects: ItemEffects }): Outcome<T & Related>;
  /** A call that reports no effects (a search's hits are not reported to the hook but kept pending): its value alone. */
  run<T>(meta: CallMeta | undefined, kind: "read", fn: (s: ReadScope) => Ran<T>): Outcome<T>;
  run<T>(meta: CallMeta, kind: "search", fn: (s: ReadScope) => Ran<T>): Outcome<T>;
  run<T>(meta: undefined, kind: "own", fn: (s: ReadScope) => Ran<T>): Outcome<T>;
  run<T>(meta: CallMeta, kind: "write", fn: (w: RecordingScope) => Ran<T>): Outcome<T>;
  run(meta: CallMeta | undefined, kind: CallKind, fn: ReadCall | WriteCall): Outcome<unknown> {
    try {
      return this.runCall(meta, kind, fn);
    } catch (error) {
      const ref = errorRef();
      console.error(JSON.stringify({ event: "internal_error", ref, tool: meta?.tool, kind, ...describeThrown(error) }));
      return internalFailure(ref);
    }
  }

  private runCall(meta: CallMeta | undefined, kind: CallKind, fn: ReadCall | WriteCall): Outcome<unknown> {
    let options: AccessOptions | undefined;
    const access = (): AccessOptions => (options ??= accessOptions(this.host.config()));
    let accessed = false;
    /** A call's effects go to the hook, and its value comes back with the related items. */
    const report = ({ value, effects }: Ran<unknown>, scope: ReadScope): unknown => {
      if (!effects) return value;
      if (typeof value !== "object" || value === null) throw new Error("a call that reports effects must return an object");
      accessed = effects.accesses.length > 0;
      return { ...value, related: reportEffects(scope.db, effects, scope.now, requireMeta(meta), access()) };
    };
    let out: Outcome<unknown>;
    if (readsOnly(kind, fn)) {
      const checked = (scope: ReadScope) => {
        if (kind !== "own") admit(scope.db, "read");
        return fn(scope);
      };
      if (kind === "search") return this.search(requireMeta(meta), access(), checked);
      out = this.read((scope) => report(checked(scope), scope), true);
    } else {
      out = this.write(requireMeta(meta), (w) => {
        admit(w.db, "write");
        return report(fn(w), w);
      });
    }
    // A session may have started or gone on: the alarm must drop it once it idles out.
    if (out.ok && accessed) this.host.upkeep.sessionsMayIdle(this.host.now(), access().sessionIdleMs);
    return out;
  }

  /**
   * The transaction of every recorded write (calls and the alarm's
   * evaluation alike): `fn` writes and notes its changes, then the ends of
   * relations it touched are re-counted, the search indexes flushed and the
   * change record appended; all of it commits together or not at all.
   * `indexed`: the search documents written (for compaction, ./upkeep.ts);
   * `queued`: the entities whose clusters wait for the alarm.
   */
  recorded<T>(meta: CallMeta, now: number, model: ModelOptions, fn: (w: RecordingScope) => T): { value: T; recorded: boolean; indexed: number; queued: number } {
    const { db } = this.host;
    return this.host.transaction(() => {
      const relations = relationWatch();
      const rec = new ChangeRecorder(db, meta, now, this.host.inverses, relations.onNote);
      const value = fn({ db, now, rec, model, items: itemSink(db), by: meta.caller });
      // Relating items can put them in a cluster (long term): both ends are re-counted once per call, or queued (src/priority/queue.ts).
      const queued = relations.settle(db, model, now);
      // The search indexes commit with the rows they describe.
      const indexed = flushSearchIndex(db);
      return { value, recorded: rec.finish() !== undefined, indexed, queued };
    });
  }

  private read<T>(fn: (s: ReadScope) => T, writePending: boolean): Outcome<T> {
    if (writePending) this.host.pending.flush();
    return capture(() =>
      this.host.transaction(() => {
        const value = fn({ db: this.host.db, now: this.host.now() });
        flushSearchIndex(this.host.db);
        return value;
      }),
    );
  }

  private write<T>(meta: CallMeta, fn: (w: RecordingScope) => T): Outcome<T> {
    const { pending, upkeep } = this.host;
    pending.flush();
    let recorded = false;
    let indexed = 0;
    let queued = 0;
    const model = modelOptions(this.host.config());
    const outcome = capture(() => {
      const r = this.recorded(meta, this.host.now(), model, fn);
      recorded = r.recorded;
      indexed = r.indexed;
      queued = r.queued;
      return r.value;
    });
    if (recorded) {
      upkeep.changeRecorded(this.host.now());
      this.host.committed?.();
    }
    upkeep.indexWritten(this.host.now(), indexed);
    upkeep.clustersQueued(this.host.now(), queued);
    if (outcome.ok) upkeep.written(this.host.now());
    return outcome;
  }

  private search(meta: CallMeta, options: AccessOptions, fn: ReadCall): Outcome<unknown> {
    let at = 0;
    let accesses: Access[] = [];
    const out = this.read((scope) => {
      at = scope.now;
      const ran = fn(scope);
      accesses = ran.effects?.accesses ?? [];
      return ran.value;
    }, false);
    if (out.ok) this.host.pending.add({ accesses, now: at, meta, options });
    return out;
  }
}
