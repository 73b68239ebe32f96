import { z } from "zod";
import { LIMITS } from "../../limits";
import { RelatedOut, replyWithRelated } from "../related";
import { filePath } from "../schemas";
import { callContext, defineTool, READ } from "../tool";

export default defineTool({
  name: "view",
  toolset: "files",
  title: "View File or Directory",
  description: `A memory file with numbered lines, or a directory (/: all) as a tree; over ~${LIMITS.viewChars / 1024} KB is cut (page with view_range). Related items follow.`,
  input: {
    path: filePath("path"),
    view_range: z.array(z.number().int()).length(2, "view_range must be [start, end]").optional().describe("[start, end], 1-based; end -1: to the end"),
  },
  output: {
    path: z.string(),
    type: z.enum(["file", "directory"]),
    text: z.string(),
    lines: z.object({ from: z.number(), to: z.number(), total: z.number() }).optional(),
    files: z.number().optional(),
    truncated: z.boolean(),
    related: RelatedOut,
  },
  annotations: READ,
  access: "read",
  run: ({ path, view_range, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.viewFile(path, view_range, resolved.meta),
      (r, resolved) => replyWithRelated(resolved.name, { ...r }, r.text, r.related),
    ),
});
