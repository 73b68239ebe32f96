import { z } from "zod";
import { LIMITS } from "../../limits";
import { filePath, fileText } from "../schemas";
import { plural } from "../format";
import { callContext, defineTool, DESTRUCTIVE, reply } from "../tool";

export default defineTool({
  name: "create",
  toolset: "files",
  title: "Create File",
  description: `Create a memory file (at most ${LIMITS.fileBytes / 1024 / 1024} MB; parents implicit). Only overwrite: true replaces an existing one.`,
  input: {
    path: filePath("path"),
    file_text: fileText("file_text"),
    overwrite: z.boolean().optional(),
  },
  output: {
    path: z.string(),
    created: z.boolean(),
    lines: z.number(),
    bytes: z.number(),
    unchanged: z.boolean().optional(),
  },
  annotations: DESTRUCTIVE,
  access: "write",
  run: ({ path, file_text, overwrite, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.createFile(path, file_text, overwrite ?? false, resolved.meta),
      (r, resolved) => {
        const out = { path: r.path, created: r.created, lines: r.lines, bytes: r.bytes, ...(r.unchanged ? { unchanged: true } : {}) };
        const size = `${plural(r.lines, "line")}, ${plural(r.bytes, "byte")}`;
        const text = r.unchanged ? `${r.path} already holds this text (${size}); nothing changed.` : `${r.created ? "Created" : "Overwrote"} ${r.path} (${size}).`;
        return reply(resolved.name, out, text);
      },
    ),
});
