import { z } from "zod";
import { filePath, fileText } from "../schemas";
import { plural } from "../format";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "str_replace",
  toolset: "files",
  title: "Replace Text in File",
  description:
    "Replace old_str with new_str in a memory file. old_str must occur exactly once; otherwise nothing changes and the error says how many times and on which lines.",
  input: {
    path: filePath("path").describe("File path relative to the memory root"),
    old_str: fileText("old_str").min(1, "old_str must not be empty").describe("Exact text to replace, whitespace included"),
    new_str: fileText("new_str").describe("Replacement text (may be empty)"),
  },
  output: {
    path: z.string(),
    line: z.number().describe("Line where the replaced text started"),
    lines: z.number().describe("Lines in the file now"),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  run: ({ path, old_str, new_str, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.strReplace(path, old_str, new_str, c.meta),
      (r, c) => {
        const out = { path: r.path, line: r.line, lines: r.lines };
        return reply(c.name, out, `Replaced text at line ${r.line} of ${r.path} (now ${plural(r.lines, "line")}).`);
      },
    ),
});
