import { z } from "zod";
import { LIMITS } from "../../limits";
import { filePath, fileText } from "../schemas";
import { plural } from "../format";
import { callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "create",
  toolset: "files",
  title: "Create File",
  description: `Create a memory file (parent directories are implicit), at most ${LIMITS.fileBytes / 1024 / 1024} MB. An existing file is only replaced with overwrite: true.`,
  input: {
    path: filePath("path").describe("File path relative to the memory root, e.g. notes/todo.md"),
    file_text: fileText("file_text").describe("The whole content of the file"),
    overwrite: z.boolean().optional().describe("Replace the file if it exists (default false: an existing file is an error)"),
  },
  output: {
    path: z.string(),
    created: z.boolean().describe("false when an existing file was overwritten"),
    lines: z.number(),
    bytes: z.number(),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  run: ({ path, file_text, overwrite, context }, ctx) =>
    callContext(
      ctx,
      context,
      (c) => c.stub.createFile(path, file_text, overwrite ?? false, c.meta),
      (r, c) => {
        const out = { path: r.path, created: r.created, lines: r.lines, bytes: r.bytes };
        return reply(c.name, out, `${r.created ? "Created" : "Overwrote"} ${r.path} (${plural(r.lines, "line")}, ${plural(r.bytes, "byte")}).`);
      },
    ),
});
