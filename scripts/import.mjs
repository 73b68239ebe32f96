#!/usr/bin/env node
/**
 * npm run import -- <memory.jsonl> [--context NAME] [--url URL] [--token TOKEN]
 *
 * Sends the file in parts under the server's 4 MB body limit, cut at line
 * boundaries, and prints the merged report. Exit codes: ./cli.mjs.
 */
import { readFile } from "node:fs/promises";
import { Failure, UsageError, endpoint, fileReason, httpError, parseCommandLine, request, run } from "./cli.mjs";

const USAGE = `Usage: npm run import -- <memory.jsonl> [--context NAME] [--url URL] [--token TOKEN]

  --context  the context to import into (default $ENGRAM_CONTEXT, else "default")
  --url      the server (default $ENGRAM_URL, else http://127.0.0.1:8787)
  --token    a token with write access (default $ENGRAM_TOKEN)

Exit code 0 when every line was imported, 3 when some were rejected (listed in the report),
1 when the file or the server failed (after a part was written, the report of what was written
is printed and the error says which lines were not applied), 2 on a usage error.`;

const PART_BYTES = 3 * 1024 * 1024;
const COUNTS = ["entitiesCreated", "entitiesMerged", "observationsAdded", "relationsCreated", "archivedAdded", "duplicates"];

/** Adds one answer's counts and rejected lines to `total`; false when it is not an import report. */
function merge(total, body) {
  if (!body || !Array.isArray(body.rejected) || !COUNTS.every((k) => typeof body[k] === "number")) return false;
  for (const k of COUNTS) total[k] += body[k];
  total.rejected.push(...body.rejected);
  return true;
}

const lineRange = (from, to) => (from === to ? `line ${from}` : `lines ${from}-${to}`);

/** What `total` counts, in the report's words: "entitiesCreated 1000, observationsAdded 1000 (1 line rejected, ...)". */
function written(total) {
  const counts = COUNTS.filter((k) => k !== "duplicates" && total[k] > 0).map((k) => `${k} ${total[k]}`);
  const rejected = total.rejected.length;
  const listed = rejected > 0 ? ` (${rejected} ${rejected === 1 ? "line" : "lines"} rejected, listed in the report on stdout)` : "";
  return `${counts.length > 0 ? counts.join(", ") : "nothing"}${listed}`;
}

/**
 * The one line of an import that stopped at part `from`-`to`: why, and exactly
 * what was written. `answered`: the server's answer to that part counted what
 * it wrote (`partial`); `refused`: it wrote nothing of it; otherwise its fate
 * is unknown (an error with no report, or a connection lost mid-request).
 */
function stopped(context, from, to, reason, total, how) {
  const part = lineRange(from, to);
  const stop = `Import into "${context}" stopped at ${part}: ${reason.replace(/\.$/, "")}.`;
  if (how === "refused" && from === 1) return new Failure(`${stop} Nothing was written.`);
  const before = from > 1 ? `Written by ${lineRange(1, from - 1)}: ${written(total)}; ` : "";
  const done =
    how === "answered"
      ? `Written, as the server counted it: ${written(total)}; no other line was applied`
      : how === "refused"
        ? `${before}${part} and the lines after were not applied`
        : `${before}${part} may or may not have been applied, the lines after were not`;
  return new Failure(`${stop} ${done}. Importing the file again is safe: what is already there counts as duplicates.`);
}

/**
 * The file's text, or a Failure naming its first line that is not UTF-8, before any part is sent: Node's
 * "utf8" reading would send U+FFFD for each such byte, storing "Caf\uFFFD" for a Latin-1 "Caf\xE9"; the
 * server refuses such bytes too. A byte-order mark at the start is skipped, as the server does.
 */
function utf8(file, bytes) {
  const strict = new TextDecoder("utf-8", { fatal: true });
  try {
    return strict.decode(bytes);
  } catch {
    let start = 0;
    for (let line = 1; ; line++) {
      const end = bytes.indexOf(0x0a, start);
      try {
        strict.decode(bytes.subarray(start, end === -1 ? bytes.length : end));
      } catch {
        throw new Failure(`${file} must be UTF-8, but line ${line} is not. Convert it first (for a Latin-1 file: iconv -f latin1 -t utf-8); nothing was written.`);
      }
      if (end === -1) throw new Failure(`${file} must be UTF-8, but is not; nothing was written.`);
      start = end + 1;
    }
  }
}

async function main(argv) {
  const { values, positionals } = parseCommandLine(argv, {});
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [file, ...extra] = positionals;
  if (!file) throw new UsageError("missing <memory.jsonl>");
  if (extra.length > 0) throw new UsageError(`one file at a time; also given: ${extra.join(" ")}`);
  const { base, headers, context } = endpoint(values);

  let bytes;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new Failure(`Cannot read ${file}: ${fileReason(error)}`);
  }
  const text = utf8(file, bytes);
  const lines = text.split("\n");
  const total = { context, ...Object.fromEntries(COUNTS.map((k) => [k, 0])), rejected: [] };
  let start = 0;
  while (start < lines.length) {
    let end = start;
    let size = 0;
    while (end < lines.length && (end === start || size + Buffer.byteLength(lines[end]) + 1 <= PART_BYTES)) {
      size += Buffer.byteLength(lines[end]) + 1;
      end++;
    }
    let res;
    try {
      res = await request(base, `/api/contexts/${encodeURIComponent(context)}/import?firstLine=${start + 1}`, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/x-ndjson" },
        body: lines.slice(start, end).join("\n"),
      });
    } catch (error) {
      if (!(error instanceof Failure) || start === 0) throw error;
      console.log(JSON.stringify(total, null, 2));
      throw stopped(context, start + 1, end, error.message, total, "unknown");
    }
    if (!res.ok) {
      // Each part is its own request, so the parts before it are written; the server's `partial` counts what this one wrote.
      const answer = await res
        .clone()
        .json()
        .catch(() => undefined);
      const how = merge(total, answer?.partial) ? "answered" : res.status < 500 ? "refused" : "unknown";
      const reason = await httpError(res);
      if (how !== "refused" || start > 0) console.log(JSON.stringify(total, null, 2));
      throw stopped(context, start + 1, end, reason, total, how);
    }
    const body = await res.json().catch(() => undefined);
    if (!merge(total, body)) {
      const reason = `the server at ${base} did not answer with an import report (is --url an engram server?)`;
      if (start === 0) throw new Failure(`The server at ${base} did not answer with an import report (${lineRange(1, end)}); is --url an engram server?`);
      console.log(JSON.stringify(total, null, 2));
      throw stopped(context, start + 1, end, reason, total, "unknown");
    }
    start = end;
  }
  console.log(JSON.stringify(total, null, 2));
  return total.rejected.length > 0 ? 3 : 0;
}

run(main, USAGE);
