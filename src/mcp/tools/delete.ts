import { z } from "zod";
import { filePath } from "../schemas";
import { plural } from "../format";
import { callContext, defineTool, DESTRUCTIVE, reply } from "../tool";

export default defineTool({
  name: "delete",
  toolset: "files",
  title: "Delete File or Directory",
  description: "Delete a memory file, or a directory with everything in it.",
  input: { path: filePath("path") },
  output: {
    path: z.string(),
    type: z.enum(["file", "directory"]),
    filesDeleted: z.number(),
  },
  annotations: DESTRUCTIVE,
  access: "write",
  run: ({ path, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.deletePath(path, resolved.meta),
      (r, resolved) => {
        const out = { path: r.path, type: r.type, filesDeleted: r.filesDeleted };
        const what = r.type === "file" ? r.path : `${r.path} (${plural(r.filesDeleted, "file")})`;
        return reply(resolved.name, out, `Deleted ${what}.`);
      },
    ),
});
