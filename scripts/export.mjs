#!/usr/bin/env node
/**
 * npm run export -- [--context NAME] [--out memory.jsonl] [--history] [--url URL] [--token TOKEN]
 *
 * Streams the context's JSONL to stdout or --out. A file is written under a
 * temporary name and renamed when the export is complete, so a failed export
 * never leaves a truncated file (nor overwrites a good one). Exit codes: ./cli.mjs.
 */
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Failure, endpoint, fileReason, httpError, parseCommandLine, request, run, UsageError } from "./cli.mjs";

const USAGE = `Usage: npm run export -- [--context NAME] [--out memory.jsonl] [--history] [--url URL] [--token TOKEN]

  --context  the context to export (default $ENGRAM_CONTEXT, else "default")
  --out      the file to write (default: standard output)
  --history  append the change history ("change" lines) after the graph
  --url      the server (default $ENGRAM_URL, else http://127.0.0.1:8787)
  --token    a token with read access (default $ENGRAM_TOKEN)

Exit code 0 when the export is complete, 1 when the server or the file failed, 2 on a usage error.`;

async function main(argv) {
  const { values, positionals } = parseCommandLine(argv, { out: { type: "string" }, history: { type: "boolean" } });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals.join(" ")} (write to a file with --out)`);
  if (values.out === "") throw new UsageError("--out needs a file name");
  const { base, headers, context } = endpoint(values);
  const res = await request(base, `/api/contexts/${encodeURIComponent(context)}/export${values.history ? "?history=1" : ""}`, { headers });
  if (!res.ok || !res.body) throw new Failure(`Export of "${context}" failed: ${await httpError(res)}`);

  const out = values.out;
  const partial = out && `${out}.partial-${process.pid}`;
  let sink;
  if (partial) {
    sink = createWriteStream(partial, { flags: "wx" });
    // Open failures (missing directory, no permission) before a byte is downloaded.
    await new Promise((resolve, reject) => sink.once("open", resolve).once("error", reject)).catch((error) => {
      throw new Failure(`Cannot write ${out}: ${fileReason(error)}`);
    });
  } else sink = process.stdout;
  try {
    await pipeline(Readable.fromWeb(res.body), sink);
  } catch (error) {
    if (partial) await rm(partial, { force: true });
    // A reader that stops early (`npm run export | head`) is not an error.
    if (error?.code === "EPIPE") return 0;
    const reason = error?.cause?.message ?? error?.message ?? String(error);
    throw new Failure(`Export of "${context}" was interrupted: ${reason}${partial ? `; ${out} was not written` : ""}`);
  }
  if (partial) {
    try {
      await rename(partial, out);
    } catch (error) {
      await rm(partial, { force: true });
      throw new Failure(`Cannot write ${out}: ${fileReason(error)}`);
    }
  }
  return 0;
}

run(main, USAGE);
