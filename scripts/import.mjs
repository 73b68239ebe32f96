#!/usr/bin/env node
// npm run import -- <memory.jsonl> [--url http://127.0.0.1:8787] [--context default] [--token T]
// Sends the file in parts under the server's 4 MB body limit, cut at line boundaries, and prints the merged report.
import { readFile } from "node:fs/promises";
import { die, endpoint, parseArgs } from "./cli.mjs";

const { positional, flags } = parseArgs(process.argv.slice(2));
const file = positional[0];
if (!file) die("usage: npm run import -- <memory.jsonl> [--url URL] [--context NAME] [--token TOKEN]");
const { base, headers, context } = endpoint(flags);
const PART_BYTES = 3 * 1024 * 1024;

const lines = (await readFile(file, "utf8")).split("\n");
const total = { entitiesCreated: 0, entitiesMerged: 0, observationsAdded: 0, relationsCreated: 0, duplicates: 0, rejected: [] };
let start = 0;
while (start < lines.length) {
  let end = start;
  let size = 0;
  while (end < lines.length && (end === start || size + Buffer.byteLength(lines[end]) + 1 <= PART_BYTES)) {
    size += Buffer.byteLength(lines[end]) + 1;
    end++;
  }
  const res = await fetch(`${base}/api/contexts/${encodeURIComponent(context)}/import?firstLine=${start + 1}`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/x-ndjson" },
    body: lines.slice(start, end).join("\n"),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) die(`import failed at lines ${start + 1}-${end}: ${res.status} ${body.message ?? ""}`);
  for (const k of ["entitiesCreated", "entitiesMerged", "observationsAdded", "relationsCreated", "duplicates"]) total[k] += body[k];
  total.rejected.push(...body.rejected);
  start = end;
}
console.log(JSON.stringify({ context, ...total }, null, 2));
if (total.rejected.length > 0) process.exitCode = 2;
