/**
 * `defineTool` in use: a whole tool, declared as every file in ./tools/ declares one. The type checker compiles this
 * file (`npx tsc --noEmit`); nothing imports it or lists it in TOOLS, so it is never bundled into the Worker or served.
 */
import { z } from "zod";
import { batch, entityName } from "./schemas";
import { callContext, defineTool, READ, reply } from "./tool";

export default defineTool({
  name: "count_entities",
  toolset: "graph",
  title: "Count Entities",
  description: "How many of the named entities exist; notFound: the missing names.",
  // The input's zod shape types `run`'s arguments; every tool also takes an optional `context`.
  input: { entityNames: batch(entityName) },
  output: { found: z.number().int().describe("How many of the names are entities."), notFound: z.array(z.string()) },
  // What the caller's grant must allow; the annotations only describe the tool to clients.
  access: "read",
  annotations: READ,
  run: ({ entityNames, context }, ctx) =>
    callContext(
      ctx,
      context,
      // The object does the work over RPC; the handler resolves the context and words the answer.
      (resolved) => resolved.stub.openNodes(entityNames, resolved.meta),
      (r, resolved) => reply(resolved.name, { found: r.entities.length, notFound: r.notFound }),
    ),
});
