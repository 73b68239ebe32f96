/**
 * The official `@modelcontextprotocol/server-memory`, spawned over stdio with
 * a fresh JSONL file per size, as a client like Claude Desktop runs it.
 */
import fs from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { memoryOf } from "./proc.mjs";

/** Its search returns every match; at 100k entities one answer can be tens of MB. */
const MAX_MESSAGE_BYTES = 1024 * 1024 * 1024;

export async function startOfficial({ root, file }) {
  fs.rmSync(file, { force: true });
  const entry = path.join(root, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env: { PATH: process.env.PATH ?? "", MEMORY_FILE_PATH: file },
    stderr: "ignore",
    maxBufferSize: MAX_MESSAGE_BYTES,
  });
  const client = new Client({ name: "engram-bench", version: "1.0.0" });
  await client.connect(transport);
  const pid = transport.pid;
  return {
    client,
    pid,
    memory: () => (pid ? memoryOf(pid) : null),
    fileBytes: () => (fs.existsSync(file) ? fs.statSync(file).size : 0),
    /**
     * Writes the whole graph as its memory.jsonl, line for line as its
     * saveGraph does. It re-reads the file on every call, so between calls
     * this is the same state its tools would have built, only faster.
     */
    writeGraph(graph) {
      const lines = [
        ...graph.entities.map((e) => JSON.stringify({ type: "entity", name: e.name, entityType: e.entityType, observations: e.observations })),
        ...graph.relations.map((r) => JSON.stringify({ type: "relation", from: r.from, to: r.to, relationType: r.relationType })),
      ];
      fs.writeFileSync(file, lines.join("\n"));
    },
    async close() {
      await client.close();
      fs.rmSync(file, { force: true });
    },
  };
}
