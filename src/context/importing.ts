/**
 * One batch of import lines (src/api/routes.ts sends them in file order:
 * entities, relations, archived items) as recorded writes of the runner.
 *
 * ## The rule (docs/operations.md#import-and-export)
 * Every good line is applied; a bad line is rejected with its number and
 * reason and writes nothing; the report counts exactly what was committed.
 * The parser rejects most bad lines before anything is written; this module
 * keeps the rule for a line that fails only while it is applied (a
 * DomainError from the graph or the archive).
 *
 * ## Transactions
 * A batch whose lines all apply is one transaction and one change record.
 * When a line fails, that transaction is rolled back, the line is rejected,
 * the lines before it are applied again as one transaction, and the batch
 * goes on after it. Each good line is applied at most twice whatever the
 * number of bad ones, so a batch of bad lines costs linear time, not
 * quadratic.
 *
 * ## Stopping
 * A failure that is not a line's (a DomainError outside the lines, or an
 * internal error, logged once by the runner under a reference and never shown) stops the batch: the answer
 * holds what was committed before it and why it stopped, so the caller can
 * say exactly what was written.
 */
import type { ErrorKind, Outcome } from "../errors";
import { addReport, emptyImportReport, importItems, type ImportItem, type ImportReport } from "../graph/import";
import type { WriteScope } from "../history";
import { importArchived, type ArchivedImport } from "../priority/transfer";
import type { CallMeta } from "../storage/meta";
import type { Runner } from "./runner";

export type ImportLine = ImportItem | ArchivedImport;

/** Why a batch stopped before its end: a domain failure's kind, or `internal_error` (details only in the log). */
export interface ImportStop {
  error: ErrorKind | "internal_error";
  message: string;
  /** The line being applied when it stopped, when a line was. */
  line?: number;
}

/** What a batch committed, and why it stopped when it did not reach its end. */
export interface ImportBatchResult {
  report: ImportReport;
  stopped?: ImportStop;
}

function applyLine(w: WriteScope, item: ImportLine): ImportReport {
  if (item.type === "entity" || item.type === "relation") return importItems(w, [item]);
  return { ...emptyImportReport(), ...importArchived(w, [item]) };
}

/** One transaction's end: its report, the line that failed it (rolled back), or a stop. */
type Attempt = { report: ImportReport } | { failedAt: number; reason: string } | { stopped: ImportStop };

/** Applies the lines `part` (indexes into `items`) as one recorded write. */
function attempt(runner: Runner, meta: CallMeta, items: readonly ImportLine[], part: readonly number[]): Attempt {
  // The line being applied when the transaction threw.
  let current: number | undefined;
  const outcome: Outcome<ImportReport> = runner.run(meta, "write", (w) => {
    const out = emptyImportReport();
    for (const at of part) {
      current = at;
      addReport(out, applyLine(w, items[at] as ImportLine));
    }
    current = undefined;
    return { value: out };
  });
  if (outcome.ok) return { report: outcome.value };
  const line = current === undefined ? undefined : items[current]?.line;
  // An internal error, logged by the runner under its ref, is no line's fault: it stops the import.
  if (outcome.kind === "Internal") return { stopped: { error: "internal_error", message: outcome.message, ...(line === undefined ? {} : { line }) } };
  // A domain failure while a line was applied is that line's; after the lines (the write's own checks) it is the batch's.
  if (current !== undefined) return { failedAt: current, reason: outcome.message };
  return { stopped: { error: outcome.kind, message: outcome.message } };
}

export function importBatch(runner: Runner, items: readonly ImportLine[], meta: CallMeta): ImportBatchResult {
  const report = emptyImportReport();
  const rejected = new Set<number>();
  let from = 0;
  while (from < items.length) {
    // Apply [from, to) but the rejected lines; a line that fails is rejected and ends the range just before it.
    let to = items.length;
    for (;;) {
      const part: number[] = [];
      for (let i = from; i < to; i++) if (!rejected.has(i)) part.push(i);
      if (part.length === 0) break;
      const done = attempt(runner, meta, items, part);
      if ("report" in done) {
        addReport(report, done.report);
        break;
      }
      if ("stopped" in done) return { report, stopped: done.stopped };
      rejected.add(done.failedAt);
      report.rejected.push({ line: (items[done.failedAt] as ImportLine).line, error: done.reason });
      to = done.failedAt;
    }
    from = to;
  }
  return { report };
}
