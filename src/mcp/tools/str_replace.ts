import { z } from "zod";
import { filePath, fileText } from "../schemas";
import { plural } from "../format";
import { callContext, defineTool, DESTRUCTIVE_REPEATABLE, reply } from "../tool";

export default defineTool({
  name: "str_replace",
  toolset: "files",
  title: "Replace Text in File",
  description: "Replace old_str (must occur exactly once) with new_str in a memory file.",
  input: {
    path: filePath("path"),
    old_str: fileText("old_str").min(1, "old_str must not be empty"),
    new_str: fileText("new_str"),
  },
  output: {
    path: z.string(),
    line: z.number(),
    lines: z.number(),
  },
  annotations: DESTRUCTIVE_REPEATABLE,
  access: "write",
  run: ({ path, old_str, new_str, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.strReplace(path, old_str, new_str, resolved.meta),
      (r, resolved) => {
        const out = { path: r.path, line: r.line, lines: r.lines };
        return reply(resolved.name, out, `Replaced text at line ${r.line} of ${r.path} (now ${plural(r.lines, "line")}).`);
      },
    ),
});
