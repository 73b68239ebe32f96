/**
 * Input and output schemas shared by the graph tools and the import endpoint.
 * Field names and shapes match @modelcontextprotocol/server-memory; the
 * limits come from src/limits.ts.
 */
import { z } from "zod";
import { CONTEXT_NAME_PATTERN, CONTEXT_NAME_RULE, LIMITS } from "../limits";
import { CATEGORIES } from "../items";
import { hiddenCharacterProblem } from "../text";

// C0 controls and DEL; observations may still hold tabs and line breaks. Names refuse more (src/text.ts) where they are created.
const CONTROL = /[\u0000-\u001f\u007f]/;
export const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const encoder = new TextEncoder();
/** UTF-8 bytes of `s`; `within` skips the count when even 3 bytes per UTF-16 unit (the most UTF-8 needs) fits. */
const utf8Length = (s: string) => encoder.encode(s).length;
const utf8Within = (s: string, max: number) => s.length * 3 <= max || utf8Length(s) <= max;

/** A zod refinement refusing what src/text.ts keeps out of names, the refusal led by `what`. */
export const shownAsSent =
  (what: string) =>
  (s: string, ctx: z.RefinementCtx): void => {
    const problem = hiddenCharacterProblem(s);
    if (problem) ctx.addIssue({ code: "custom", message: `${what} ${problem}` });
  };

/**
 * A name or type. One that names something new (`creating`) also refuses the
 * characters src/text.ts keeps out of names; one that refers to what exists
 * (open_nodes, the delete tools) does not, so an entity stored before that
 * rule can still be read and deleted.
 */
const label = (max: number, what: string, creating = false) =>
  z
    .string()
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`)
    .refine((s) => s.trim() !== "", `${what} must not be blank`)
    .superRefine((s, ctx) => {
      const problem = creating ? hiddenCharacterProblem(s) : CONTROL.test(s) ? "must not contain control characters" : undefined;
      if (problem) ctx.addIssue({ code: "custom", message: `${what} ${problem}` });
    });

/** An entity name that refers to an entity. */
export const entityName = label(LIMITS.entityName, "entity name");
/** The name of an entity being created (create_entities, an import line). */
export const newEntityName = label(LIMITS.entityName, "entity name", true);
export const typeName = (what: string) => label(LIMITS.entityType, what);
/** An entity type or relation type being written. */
export const newTypeName = (what: string) => label(LIMITS.entityType, what, true);

export const observationText = z
  .string()
  .min(1, "observation must not be empty")
  .refine((s) => utf8Within(s, LIMITS.observationBytes), `observation must be at most ${LIMITS.observationBytes} bytes`)
  .refine((s) => !CONTROL_EXCEPT_WHITESPACE.test(s), "observation must not contain control characters other than tab and line breaks");

const inRange = (number: z.ZodNumber, what: string, min: number, max?: number) => {
  const atLeast = number.min(min, `${what} must be at least ${min}`);
  return max === undefined ? atLeast : atLeast.max(max, `${what} must be at most ${max}`);
};

/** A whole-number argument from `min` to `max` (no upper bound when left out); a refusal names the argument and the bound. */
export const intIn = (what: string, min: number, max?: number) =>
  // zod refuses a whole number past 2^53 as not whole, so the message gives the range too.
  // `abort`: a number refused here is not refused again by the range checks (two messages for one value).
  inRange(z.number().int({ message: `${what} must be a whole number from ${min} to ${max ?? Number.MAX_SAFE_INTEGER}`, abort: true }), what, min, max);

/** A numeric argument from `min` to `max`, fractions allowed; refused the same way as `intIn`. */
export const numberIn = (what: string, min: number, max: number) => inRange(z.number(), what, min, max);

export const batch = <T extends z.ZodType>(item: T) => z.array(item).max(LIMITS.batchItems, `at most ${LIMITS.batchItems} items per call`);

/** A priority category (src/priority/model.ts); anything else is an error naming the allowed ones. */
export const categoryField = z.enum(CATEGORIES, { error: () => `category must be one of ${CATEGORIES.join(", ")}` });

export const EntitySchema = z.object({
  name: newEntityName,
  entityType: newTypeName("entityType"),
  observations: batch(observationText),
  category: categoryField.optional().describe("Priority category; guessed if omitted"),
});

/** A relation that exists (delete_relations). */
export const RelationSchema = z.object({
  from: entityName,
  to: entityName,
  relationType: typeName("relationType"),
});
/** A relation being created: its ends exist, its type is written. */
export const NewRelationSchema = RelationSchema.extend({ relationType: newTypeName("relationType") });

/** Output shapes are looser than inputs: they describe what is stored. */
export const EntityOut = z.object({ name: z.string(), entityType: z.string(), observations: z.array(z.string()) });
export const RelationOut = z.object({ from: z.string(), to: z.string(), relationType: z.string() });
export const DeleteOut = { success: z.boolean(), message: z.string() };

/** Every tool but the contexts tools takes it; the server's instructions say where a call without it goes. */
export const contextArg = z.string().regex(CONTEXT_NAME_PATTERN, `context ${CONTEXT_NAME_RULE}`).optional();
/**
 * How tools/list shows `contextArg`: a string, without the name pattern. The
 * argument names a context that exists (list_contexts shows them), the
 * server checks the pattern and its error quotes it, and a copy of the
 * pattern in every tool's schema weighed on every tools/list
 * (`npm run bench:sizes` prints the sizes). add_context, which makes up
 * a name, lists it.
 */
export const contextArgListed = z.string().optional();

/**
 * A search query cut to LIMITS.queryChars: agents paste long text, and the
 * first part of it is a better answer than a refusal. A surrogate pair split
 * by the cut loses its first half too.
 */
export function cutQuery(query: string): string {
  if (query.length <= LIMITS.queryChars) return query;
  const cut = query.slice(0, LIMITS.queryChars);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** What the search tools say about it. */
export const cutNote = `Queries over ${LIMITS.queryChars} characters are cut.`;

/** A file or directory path; src/files/path.ts normalises it and names any problem. */
export const filePath = (what: string) =>
  z.string().min(1, `${what} must not be empty; use / for the memory root`).max(LIMITS.filePath, `${what} must be at most ${LIMITS.filePath} characters`);

/** File content, at most LIMITS.fileBytes of UTF-8. */
export const fileText = (what: string) => z.string().refine((s) => utf8Within(s, LIMITS.fileBytes), `${what} must be at most ${LIMITS.fileBytes} bytes (1 MB)`);

/** The asOf argument of the graph reads (src/graph/asof.ts parses it and refuses a future or unparsable time). */
export const asOfArg = z.union([z.string(), z.number()]).optional().describe("ISO time or epoch ms");
