import { z } from "zod";
import { ITEM_KINDS } from "../../items";
import { RECALL_TOKENS as RECALL_BUDGET } from "../../limits";
import { cutNote, cutQuery, intIn } from "../schemas";
import { callContext, defineTool, READ, reply } from "../tool";

export default defineTool({
  name: "recall",
  toolset: "graph",
  title: "Recall",
  description: `Answer a question from memory: the best entities, files and documents for it, ranked, with the text that matched, within a token budget. ${cutNote}`,
  input: {
    query: z.string().refine((s) => s.trim() !== "", "query must not be empty"),
    budgetTokens: intIn("budgetTokens", RECALL_BUDGET.min, RECALL_BUDGET.max).optional(),
    kinds: z
      .array(z.enum(ITEM_KINDS, { error: () => `kinds must be among ${ITEM_KINDS.join(", ")}` }))
      .min(1, "kinds must name at least one kind")
      .optional()
      .describe("Omitted: all"),
    provenance: z.boolean().optional(),
  },
  output: {
    items: z.array(
      z.object({
        key: z.string(),
        kind: z.enum(["entity", "file", "doc"]),
        name: z.string(),
        score: z.number(),
        text: z.string(),
        via: z.enum(["connector", "covisited"]).optional(),
        by: z.string().optional(),
        at: z.string().optional(),
      }),
    ),
    omitted: z.number(),
    budgetTokens: z.number(),
    usedTokens: z.number(),
    mode: z.string(),
    note: z.string().optional(),
  },
  annotations: READ,
  access: "read",
  run: ({ query, budgetTokens, kinds, provenance, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) =>
        resolved.stub.recall(cutQuery(query), { budgetTokens: budgetTokens ?? RECALL_BUDGET.default, kinds: kinds ?? [...ITEM_KINDS], provenance }, resolved.meta),
      (result, resolved) => reply(resolved.name, { ...result }),
    ),
});
