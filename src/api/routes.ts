/**
 * REST under /api (already authenticated by the Worker).
 *
 *   GET  /api/contexts/:name/export    memory.jsonl of the context, streamed page by page (read grant;
 *                                      ?history=1 appends the change history)
 *   POST /api/contexts/:name/import    memory.jsonl body (application/x-ndjson); report of counts and rejected lines (write grant)
 *   POST /api/contexts/:name/restore   point-in-time recovery, administrators only (pitr.ts)
 *   GET  /api/contexts/:name/stats     counts, size, settings, entities' access statistics (read grant; stats.ts)
 *   /api/contexts/:name/webhooks       a context's webhooks, administrators only (webhooks.ts)
 *   GET  /api/contexts/:name/entities  a keyset page of entities by name, update or priority (read grant; browse.ts)
 *   GET  /api/contexts/:name/graph     the best-ranked entities or one's neighbourhood, with their relations (read grant; browse.ts)
 *   /api/tokens, /api/contexts, /api/audit   administration (src/api/tokens.ts, contexts.ts, audit.ts)
 *   GET  /api/admin/registry-calls      calls the Registry served, administrators only (admin.ts)
 *
 * Every POST, PUT, PATCH and DELETE declares its body's media type (or, with
 * no body, carries Authorization), so no form or no-cors page can send one:
 * requireMedia in http.ts.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app";
import { admin } from "./admin";
import { callerIdOf } from "../auth/caller";
import type { ImportBatchResult, ImportLine, ImportStop } from "../context/importing";
import { describeThrown, errorRef } from "../errors";
import { addReport, emptyImportReport, type ImportReport } from "../graph/import";
import { CONTEXT_NAME_PATTERN, INVALID_CONTEXT_NAME, LIMITS } from "../limits";
import { audit } from "./audit";
import { browseEntities, graphPicture } from "./browse";
import { contexts } from "./contexts";
import { CODE, JSON_MEDIA, JSONL_MEDIA, readFlag, requireAdmin, requireContext, requireMedia, STATUS } from "./http";
import { parseJsonl } from "./jsonl";
import { decodeUtf8, describeIllFormed, type IllFormedUtf8 } from "../text";
import { oauth } from "./oauth";
import { recoverToPoint } from "./pitr";
import { stats } from "./stats";
import { tokens } from "./tokens";
import { webhooks } from "./webhooks";

export const api = new Hono<AppEnv>();

const EXPORT_PAGE_LINES = 500;
/** History lines carry inverse ops, and archived items whole payloads, so their pages are cut by size. */
const EXPORT_HISTORY_PAGE_CHARS = 1024 * 1024;

/** The import takes JSON Lines; every other state-changing route JSON (see requireMedia). */
const IMPORT_PATH = /^\/api\/contexts\/[^/]+\/import$/;
api.use(
  "*",
  requireMedia((c) => (IMPORT_PATH.test(c.req.path) ? JSONL_MEDIA : JSON_MEDIA)),
);

api.use("/contexts/:name/*", async (c, next) => {
  if (!CONTEXT_NAME_PATTERN.test(c.req.param("name") ?? "")) {
    return c.json({ error: "invalid_context", message: INVALID_CONTEXT_NAME }, 400);
  }
  await next();
});

api.get("/contexts/:name/export", requireContext("read"), (c) => {
  const history = readFlag(c, "history");
  if (!history.ok) return history.response;
  const stub = c.env.MEMORY.getByName(c.req.param("name"));
  const withHistory = history.value;
  const encoder = new TextEncoder();
  // The graph in the official format first, then archived graph items (lines the official reader skips:
  // src/priority/transfer.ts); then, on request, the change history (`type: "change"` lines).
  let cursor: string | undefined;
  let graphDone = false;
  let archiveAfter: number | undefined = 0;
  let historyAfter = 0;
  let done = false;
  const nextPage = async (): Promise<string[]> => {
    if (!graphDone) {
      const page = await stub.exportPage(cursor, EXPORT_PAGE_LINES);
      if (!page.ok) throw new Error(page.message);
      cursor = page.value.next;
      graphDone = cursor === undefined;
      return page.value.lines;
    }
    if (archiveAfter !== undefined) {
      const page = await stub.exportArchive(archiveAfter, EXPORT_PAGE_LINES, EXPORT_HISTORY_PAGE_CHARS);
      if (!page.ok) throw new Error(page.message);
      archiveAfter = page.value.next;
      done = archiveAfter === undefined && !withHistory;
      return page.value.lines;
    }
    const page = await stub.exportHistory(historyAfter, EXPORT_HISTORY_PAGE_CHARS);
    if (!page.ok) throw new Error(page.message);
    if (page.value.next === undefined) done = true;
    else historyAfter = page.value.next;
    return page.value.lines;
  };
  const body = new ReadableStream<Uint8Array>({
    // Each pull enqueues at least one page with lines, or closes: a pull that
    // enqueues nothing would leave the stream waiting forever.
    async pull(controller) {
      while (!done) {
        let lines: string[];
        try {
          lines = await nextPage();
        } catch (error) {
          return controller.error(error);
        }
        if (lines.length > 0) {
          controller.enqueue(encoder.encode(lines.map((l) => `${l}\n`).join("")));
          if (!done) return;
        }
      }
      controller.close();
    },
  });
  return new Response(body, {
    headers: {
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="${c.req.param("name")}.jsonl"`,
    },
  });
});

api.post("/contexts/:name/restore", requireAdmin, requireContext("write"), recoverToPoint);

api.get("/contexts/:name/stats", stats);
api.get("/contexts/:name/entities", requireContext("read"), browseEntities);
api.get("/contexts/:name/graph", requireContext("read"), graphPicture);

/** The answer of an import that stopped part-way: where and why, and exactly what was written before it stopped. */
function stoppedAnswer(stop: ImportStop, report: ImportReport, inFlight = false) {
  const where = stop.line === undefined ? "" : ` at line ${stop.line}`;
  // An RPC that failed in flight may have committed its batch or not: say so rather than guess.
  const written = inFlight
    ? "`partial` counts what was written before the batch in progress, whose lines may or may not have been applied"
    : "`partial` counts exactly what was written (nothing else was)";
  return {
    error: stop.error === "internal_error" ? stop.error : CODE[stop.error],
    message: `The import stopped${where}: ${stop.message} ${written}, and lists the rejected lines. Importing the same file again is safe: what is already there counts as duplicates.`,
    partial: report,
  };
}

/** Why a file that is not UTF-8 is refused, naming the line (numbered from `firstLine`) and the byte within it. */
function notUtf8File(bytes: Uint8Array, at: IllFormedUtf8, firstLine: number): string {
  const lineStart = at.offset === 0 ? 0 : bytes.lastIndexOf(0x0a, at.offset - 1) + 1;
  let line = firstLine;
  for (let i = 0; i < lineStart; i++) if (bytes[i] === 0x0a) line++;
  const where = describeIllFormed({ offset: at.offset - lineStart, byte: at.byte });
  return `The file must be UTF-8, but line ${line} is not: ${where} of the line. Convert it first (for a Latin-1 file: iconv -f latin1 -t utf-8); nothing was written.`;
}

api.post("/contexts/:name/import", requireContext("write"), async (c) => {
  const firstLine = Number(c.req.query("firstLine") ?? "1");
  if (!Number.isSafeInteger(firstLine) || firstLine < 1) {
    return c.json({ error: CODE.Invalid, message: "firstLine must be a positive integer; nothing was written." }, 400);
  }
  // Decoded by hand: workerd warns when .text() reads a body whose Content-Type (x-ndjson, as `npm run import` sends) is not text.
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) return c.json({ error: CODE.Invalid, message: notUtf8File(bytes, decoded.at, firstLine) }, 400);
  const parsed = parseJsonl(decoded.text, firstLine);
  const stub = c.env.MEMORY.getByName(c.req.param("name"));
  const report = emptyImportReport();
  report.rejected.push(...parsed.rejected);
  const byLine = () => report.rejected.sort((a, b) => a.line - b.line);
  // Entities first, so relations may refer to entities anywhere in the file; archived items go to the archive.
  // Each batch applies every good line and rejects a line that fails while applied (src/context/importing.ts).
  const items: ImportLine[] = [...parsed.entities, ...parsed.relations, ...parsed.archived];
  for (let i = 0; i < items.length; i += LIMITS.batchItems) {
    let result: ImportBatchResult;
    try {
      const caller = c.get("caller");
      result = await stub.importBatch(items.slice(i, i + LIMITS.batchItems), {
        caller: caller.id,
        callerId: callerIdOf(caller),
        ...(caller.tokenId ? { tokenId: caller.tokenId } : {}),
        tool: "api:import",
      });
    } catch (error) {
      const ref = errorRef();
      console.error(JSON.stringify({ event: "import_failed", ref, path: c.req.path, ...describeThrown(error) }));
      byLine();
      return c.json(stoppedAnswer({ error: "internal_error", message: `Internal server error (ref ${ref}).` }, report, true), 500);
    }
    addReport(report, result.report);
    const { stopped } = result;
    if (stopped) {
      byLine();
      const status = stopped.error === "internal_error" ? 500 : STATUS[stopped.error];
      return c.json(stoppedAnswer(stopped, report), status);
    }
  }
  byLine();
  return c.json(report);
});

api.route("/tokens", tokens);
api.route("/oauth", oauth);
api.route("/contexts/:name/webhooks", webhooks);
api.route("/contexts", contexts);
api.route("/audit", audit);
api.route("/admin", admin);
