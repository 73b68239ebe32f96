import { z } from "zod";
import { LIMITS } from "../../limits";
import { RelatedOut, replyWithRelated } from "../related";
import { filePath } from "../schemas";
import { callContext, defineTool } from "../tool";

export default defineTool({
  name: "view",
  toolset: "files",
  title: "View File or Directory",
  description: `Show a memory file with numbered lines, or a directory (/ = everything) as a tree. Long output is cut at ~${LIMITS.viewChars / 1024} KB with a note; page with view_range. Related items follow.`,
  input: {
    path: filePath("path").describe("File or directory, relative to the memory root; / for the root"),
    view_range: z
      .array(z.number().int())
      .length(2, "view_range must be [start, end]")
      .optional()
      .describe("[start, end] lines, 1-based and inclusive; end -1 = to the end of the file"),
  },
  output: {
    path: z.string(),
    type: z.enum(["file", "directory"]),
    text: z.string().describe("What the agent sees: numbered lines or the tree"),
    lines: z.object({ from: z.number(), to: z.number(), total: z.number() }).optional().describe("Lines shown, of the file's total"),
    files: z.number().optional().describe("Files under the directory"),
    truncated: z.boolean(),
    related: RelatedOut,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: ({ path, view_range, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.viewFile(path, view_range, c.meta),
      (r, c) => replyWithRelated(c.name, { ...r }, r.text, r.related),
    ),
});
