import { z } from "zod";
import { RelatedOut, replyWithRelated } from "../related";
import { asOfArg, EntityOut, RelationOut, batch, entityName } from "../schemas";
import { callContext, defineTool, READ } from "../tool";

export default defineTool({
  name: "open_nodes",
  toolset: "graph",
  title: "Open Nodes",
  description: "Entities by name with all their relations; notFound: missing names; related: items often used with them.",
  input: {
    names: batch(entityName),
    asOf: asOfArg,
    includeSuperseded: z.boolean().optional(),
    provenance: z.boolean().optional(),
  },
  output: {
    entities: z.array(
      EntityOut.extend({
        superseded: z.array(z.object({ text: z.string(), addedAt: z.string(), supersededAt: z.string() })).optional(),
        provenance: z.array(z.object({ observation: z.string(), by: z.string(), at: z.string() })).optional(),
      }),
    ),
    relations: z.array(RelationOut),
    notFound: z.array(z.string()).optional(),
    aliases: z.record(z.string(), z.string()).optional(),
    note: z.string().optional(),
    related: RelatedOut.optional(),
  },
  annotations: READ,
  access: "read",
  listOutputSchema: true,
  run: ({ names, asOf, includeSuperseded, provenance, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.openNodes(names, resolved.meta, { asOf, includeSuperseded, provenance }),
      (r, resolved) => {
        const out: Record<string, unknown> = { entities: r.entities, relations: r.relations };
        if (r.notFound.length > 0) out.notFound = r.notFound;
        if (Object.keys(r.aliases).length > 0) out.aliases = r.aliases;
        if (r.relationsTruncated) out.note = "More relations exist than shown; open fewer nodes to see them all.";
        // The JSON text keeps the official shape; related items follow as their own block.
        const text = JSON.stringify(out);
        if (r.related.length > 0) out.related = r.related;
        return replyWithRelated(resolved.name, out, text, r.related);
      },
    ),
});
