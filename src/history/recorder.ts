/**
 * The recorder: how a write call turns into one change record.
 *
 * A store function that changes an item calls `rec.note(items, inverse)` once
 * per small change it makes, with the inverse op that puts back what was
 * there before. `ChangeRecorder.finish()` then writes one `changes` row (plus
 * its `change_items` and `change_inverse` rows) inside the caller's
 * transaction, or nothing at all when nothing was noted.
 *
 * ## Invariants
 * - Notes are kept in write order; undo applies them in reverse.
 * - Every op's kind must be registered (see `InverseKind`): an unregistered
 *   kind is a programming error and aborts the transaction, so a change can
 *   never be recorded without a way to undo it.
 * - Memory stays bounded: the inverse is flushed to SQL in parts of about
 *   `PART_CHARS` characters, so one huge change never builds one huge row.
 *   An op bigger than that gets a part of its own; a domain keeps each op
 *   well under the 2 MB row limit (src/files/store.ts says how for files).
 */
import type { ItemSink } from "../items";
import type { Json } from "../storage/json";
import { jsonBatches, type Db } from "../storage/sql";
// upward: a write scope carries the deployment's priority model for the appliers that decide a tier (type only)
import type { ModelOptions } from "../priority/model";

/**
 * An inverse op: a small JSON object whose `kind` names the domain applier
 * that replays it. A domain types its ops as a union discriminated by `kind`
 * (src/graph/writes.ts GraphOp) and its appliers with InverseKinds, so each
 * applier is handed ops of its own kind, typed.
 */
export type InverseOp = { kind: string } & { [key: string]: Json };

/** What a store function writes through: the database, the clock, the recorder and where removed or re-keyed items are reported. */
export interface WriteScope {
  db: Db;
  now: number;
  rec: Recorder;
  items: ItemSink;
  /**
   * The deployment's priority model (MEMORY_CATEGORY_WEIGHTS,
   * SEMANTIC_CLUSTER_THRESHOLD), read from the settings at the start of each
   * write call, for appliers that decide a tier (an undo replays ops without
   * the call's options). Absent in scopes built by tests: DEFAULT_MODEL.
   */
  model?: ModelOptions;
  /**
   * Who writes (CallMeta.caller, as memory_history shows it), stamped on the
   * observations written as their provenance (`written_by`). Absent in
   * scopes built by tests: NULL.
   */
  by?: string;
}

/** The scope a write call is handed (src/context/runner.ts): a WriteScope whose recorder is the full ChangeRecorder (undo needs its seq). */
export interface RecordingScope extends WriteScope {
  rec: ChangeRecorder;
}

/** The one thing store functions see of history. */
interface Recorder {
  /**
   * Records that `items` (keys like `entity:<name>`) changed, and `inverse`
   * restores their prior state. Call it for every write that changed a row,
   * never for one that changed nothing.
   */
  note(items: string | readonly string[], inverse: InverseOp): void;
}

/** One phrase of a change's summary: "+entity Alice", "-obs Alice". */
export interface Phrase {
  action: "+" | "-" | "~";
  noun: string;
  name: string;
}

/** How a domain undoes and describes one kind of inverse op. */
export interface InverseKind<O extends InverseOp = InverseOp> {
  /** Replays `op` through `w` (so the replay is itself recorded); throws DomainError("Conflict") when it cannot. */
  apply(w: WriteScope, op: O): void;
  /** The forward change this inverse undoes, for summaries. */
  describe(op: O): Phrase;
}

/** A domain's appliers: one for each kind of its op union `O`, given ops of that kind (the registry routes stored ops by `kind`). */
export type InverseKinds<O extends InverseOp> = { readonly [K in O["kind"]]: InverseKind<Extract<O, { kind: K }>> };

export type InverseRegistry = ReadonlyMap<string, InverseKind>;

/** Joins the inverse kinds of every domain; summaries list kinds in this order. */
export function inverseRegistry(...domains: Readonly<Record<string, InverseKind>>[]): InverseRegistry {
  const out = new Map<string, InverseKind>();
  for (const domain of domains) {
    for (const [kind, def] of Object.entries(domain)) {
      if (out.has(kind)) throw new Error(`inverse kind "${kind}" is registered twice`);
      out.set(kind, def);
    }
  }
  return out;
}

/** Who made a change; MemoryContext's CallMeta satisfies it. */
export interface ChangeMeta {
  caller: string;
  /** The caller's stable id (a token's id, else the built-in caller's name): whose change it is, for undo. */
  callerId: string;
  /** The API token behind the change (CallMeta.tokenId). */
  tokenId?: string;
  tool: string;
  session?: string;
}

/** Characters of inverse JSON per part: well under the 2 MB row limit even for 3-byte UTF-8. */
export const PART_CHARS = 256 * 1024;
const SUMMARY_CHARS = 300;
const NAMES_PER_GROUP = 3;

interface Group {
  order: number;
  label: string;
  /** The first few names and how often each was noted. */
  names: Map<string, number>;
  /** Notes about names past the first few, counted without keeping them. */
  others: number;
}

export class ChangeRecorder implements Recorder {
  private seqValue: number | undefined;
  private part = 0;
  private buffer: string[] = [];
  private bufferChars = 0;
  private readonly items = new Set<string>();
  private readonly groups = new Map<string, Group>();
  private readonly order: Map<string, number>;
  private headline = "";

  constructor(
    private readonly db: Db,
    private readonly meta: ChangeMeta,
    private readonly now: number,
    private readonly kinds: InverseRegistry,
    /** Told of every op noted, in order (MemoryContext collects the relations a call changed). */
    private readonly onNote?: (op: InverseOp) => void,
  ) {
    this.order = new Map([...kinds.keys()].map((k, i) => [k, i]));
  }

  note(items: string | readonly string[], inverse: InverseOp): void {
    const kind = this.kinds.get(inverse.kind);
    if (!kind) throw new Error(`no inverse kind "${inverse.kind}" is registered; register it in MemoryContext`);
    for (const item of typeof items === "string" ? [items] : items) this.items.add(item);
    const json = JSON.stringify(inverse);
    // A large op (a file's prior content) starts a part of its own, so a part never holds a full buffer and a large op.
    if (this.bufferChars > 0 && this.bufferChars + json.length > PART_CHARS) this.flush();
    this.buffer.push(json);
    this.bufferChars += json.length + 1;
    this.describe(inverse.kind, kind.describe(inverse));
    this.onNote?.(inverse);
    if (this.bufferChars >= PART_CHARS) this.flush();
  }

  /** Marks this change as an undo, shown before its phrases: "undo #12, #13". */
  setHeadline(text: string): void {
    this.headline = text;
  }

  /** The change's sequence number, creating its row if nothing was noted yet. */
  seq(): number {
    if (this.seqValue !== undefined) return this.seqValue;
    const row = this.db.one<{ seq: number }>(
      "INSERT INTO changes (at, caller, caller_id, token_id, session, tool, summary) VALUES (?, ?, ?, ?, ?, ?, '') RETURNING seq",
      this.now,
      this.meta.caller,
      this.meta.callerId,
      this.meta.tokenId ?? null,
      this.meta.session ?? null,
      this.meta.tool,
    );
    if (!row) throw new Error("INSERT INTO changes returned no seq");
    this.seqValue = row.seq;
    return row.seq;
  }

  /** Completes the record; returns its seq, or undefined when the call changed nothing. */
  finish(): number | undefined {
    if (this.seqValue === undefined && this.buffer.length === 0) return undefined;
    this.flush();
    const seq = this.seq();
    // OR IGNORE, not ON CONFLICT: no row here can fail (the seq is new, the items distinct strings), and a statement
    // that cannot abort needs no statement journal, which would copy every page these scattered inserts touch.
    for (const batch of jsonBatches([...this.items])) {
      this.db.run("INSERT OR IGNORE INTO change_items (item, seq) SELECT value, ?2 FROM json_each(?1)", batch, seq);
    }
    this.db.run("UPDATE changes SET summary = ? WHERE seq = ?", this.summary(), seq);
    return seq;
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    const seq = this.seq();
    this.db.run("INSERT INTO change_inverse (seq, part, ops) VALUES (?, ?, ?)", seq, this.part++, `[${this.buffer.join(",")}]`);
    this.buffer = [];
    this.bufferChars = 0;
  }

  private describe(kind: string, p: Phrase): void {
    const label = `${p.action}${p.noun}`;
    let group = this.groups.get(label);
    if (!group) {
      group = { order: this.order.get(kind) ?? 0, label, names: new Map(), others: 0 };
      this.groups.set(label, group);
    }
    if (group.names.has(p.name) || group.names.size < NAMES_PER_GROUP) {
      group.names.set(p.name, (group.names.get(p.name) ?? 0) + 1);
    } else {
      group.others++;
    }
  }

  /** "+entity Alice, Bob; +obs Alice ×3; -rel A -knows-> B and 4 more" */
  private summary(): string {
    const parts = [...this.groups.values()]
      .sort((a, b) => a.order - b.order)
      .map((g) => {
        const names = [...g.names].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(", ");
        return `${g.label} ${names}${g.others > 0 ? ` and ${g.others} more` : ""}`;
      });
    const text = [this.headline, parts.join("; ")].filter(Boolean).join(": ");
    return text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text;
  }
}
