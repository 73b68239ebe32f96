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
1 when the file or the server failed, 2 on a usage error.`;

const PART_BYTES = 3 * 1024 * 1024;
const COUNTS = ["entitiesCreated", "entitiesMerged", "observationsAdded", "relationsCreated", "archivedAdded", "duplicates"];

/** Adds one answer's counts and rejected lines to `total`; false when it is not an import report. */
function merge(total, body) {
  if (!body || !Array.isArray(body.rejected) || !COUNTS.every((k) => typeof body[k] === "number")) return false;
  for (const k of COUNTS) total[k] += body[k];
  total.rejected.push(...body.rejected);
  return true;
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

  let text;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new Failure(`Cannot read ${file}: ${fileReason(error)}`);
  }
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
    const res = await request(base, `/api/contexts/${encodeURIComponent(context)}/import?firstLine=${start + 1}`, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/x-ndjson" },
      body: lines.slice(start, end).join("\n"),
    });
    if (!res.ok) {
      // Lines before `start` are imported (each part is its own request); say so, so a retry can skip them.
      const done = start > 0 ? ` (lines 1-${start} were imported: ${JSON.stringify(total)})` : " (nothing was imported)";
      throw new Failure(`Import into "${context}" failed at lines ${start + 1}-${end}: ${await httpError(res)}${done}`);
    }
    const body = await res.json().catch(() => undefined);
    if (!merge(total, body)) throw new Failure(`The server at ${base} did not answer with an import report (lines ${start + 1}-${end}); is --url an engram server?`);
    start = end;
  }
  console.log(JSON.stringify(total, null, 2));
  return total.rejected.length > 0 ? 3 : 0;
}

run(main, USAGE);
