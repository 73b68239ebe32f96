import { z } from "zod";
import { LIMITS } from "../../limits";
import { asOfArg, EntityOut, intIn, RelationOut } from "../schemas";
import { callContext, defineTool, READ, reply } from "../tool";

export default defineTool({
  name: "read_graph",
  toolset: "graph",
  title: "Read Graph",
  description: `Read the graph in pages of at most ${LIMITS.readGraphPageEntities} entities or ~${LIMITS.readGraphPageBytes / 1024} KB (pass nextCursor back as cursor); mode "summary": names and types only.`,
  input: {
    limit: intIn("limit", 1, LIMITS.readGraphPageEntities).optional(),
    cursor: z.string().max(200).optional(),
    mode: z.enum(["full", "summary"]).optional(),
    asOf: asOfArg,
  },
  output: {
    entities: z.array(EntityOut.partial({ observations: true })),
    relations: z.array(RelationOut),
    nextCursor: z.string().optional(),
    note: z.string().optional(),
  },
  annotations: READ,
  access: "read",
  listOutputSchema: true,
  run: ({ limit, cursor, mode, asOf, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.readGraph({ limit, cursor, mode }, resolved.meta, asOf),
      (page, resolved) => reply(resolved.name, { ...page }),
    ),
});
