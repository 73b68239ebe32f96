/**
 * How related items (co-visitation recommendations) reach the agent: a short
 * text block after the result, and the same list as `related` in
 * structuredContent. Paths and keys only, never content, so the agent opens
 * what it wants, and what it opens strengthens the association.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { z } from "zod";
import { itemLabel, type RelatedItem } from "../covisit";
import { reply } from "./tool";

/** Item keys often used with this one, strongest first (the descriptions that list it say so; the text block shows it). */
export const RelatedOut = z.array(z.object({ item: z.string(), count: z.number().int() }));

/** The text block, or undefined when nothing is related. */
function relatedText(related: readonly RelatedItem[]): string | undefined {
  if (related.length === 0) return undefined;
  const lines = related.map((r, i) => `  [${i + 1}] ${itemLabel(r.item)} (co-visited ${r.count}x)`);
  return ["🧠 RELATED FILES (Associative Memory)", ...lines].join("\n");
}

/** `reply`, with the related block between the result and the context line. */
export function replyWithRelated(context: string, structured: Record<string, unknown>, text: string | undefined, related: readonly RelatedItem[]): CallToolResult {
  const result = reply(context, structured, text);
  const block = relatedText(related);
  if (block) result.content.splice(1, 0, { type: "text", text: block });
  return result;
}
