import { z } from "zod";
import { filePath, fileText, intIn } from "../schemas";
import { plural } from "../format";
import { ADDITIVE, callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "insert",
  toolset: "files",
  title: "Insert Text into File",
  description: "Insert insert_text into a memory file after line insert_line (0: at the top).",
  input: {
    path: filePath("path"),
    insert_line: intIn("insert_line", 0),
    insert_text: fileText("insert_text").min(1, "insert_text must not be empty"),
  },
  output: {
    path: z.string(),
    insert_line: z.number(),
    linesInserted: z.number(),
    lines: z.number(),
  },
  annotations: ADDITIVE,
  access: "write",
  run: ({ path, insert_line, insert_text, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.insertText(path, insert_line, insert_text, resolved.meta),
      (r, resolved) => {
        const out = { path: r.path, insert_line: r.insert_line, linesInserted: r.linesInserted, lines: r.lines };
        return reply(resolved.name, out, `Inserted ${plural(r.linesInserted, "line")} after line ${r.insert_line} of ${r.path} (now ${plural(r.lines, "line")}).`);
      },
    ),
});
