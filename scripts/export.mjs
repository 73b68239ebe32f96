#!/usr/bin/env node
// npm run export -- [--url http://127.0.0.1:8787] [--context default] [--token T] [--out memory.jsonl]
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { die, endpoint, parseArgs } from "./cli.mjs";

const { flags } = parseArgs(process.argv.slice(2));
const { base, headers, context } = endpoint(flags);
const res = await fetch(`${base}/api/contexts/${encodeURIComponent(context)}/export`, { headers });
if (!res.ok || !res.body) die(`export failed: ${res.status} ${await res.text()}`);
await pipeline(Readable.fromWeb(res.body), flags.out ? createWriteStream(flags.out) : process.stdout);
