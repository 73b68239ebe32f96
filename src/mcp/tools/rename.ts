import { z } from "zod";
import { filePath } from "../schemas";
import { plural } from "../format";
import { ADDITIVE, callContext, defineTool, reply } from "../tool";

export default defineTool({
  name: "rename",
  toolset: "files",
  title: "Rename or Move File or Directory",
  description: "Rename or move a memory file or directory; new_path must not exist. Associations follow.",
  input: {
    old_path: filePath("old_path"),
    new_path: filePath("new_path"),
  },
  output: {
    old_path: z.string(),
    new_path: z.string(),
    type: z.enum(["file", "directory"]),
    filesMoved: z.number(),
  },
  annotations: ADDITIVE,
  access: "write",
  run: ({ old_path, new_path, context }, ctx) =>
    callContext(
      ctx,
      context,
      (resolved) => resolved.stub.renamePath(old_path, new_path, resolved.meta),
      (r, resolved) => {
        const out = { old_path: r.old_path, new_path: r.new_path, type: r.type, filesMoved: r.filesMoved };
        const count = r.type === "directory" ? ` (${plural(r.filesMoved, "file")})` : "";
        return reply(resolved.name, out, `Renamed ${r.old_path} to ${r.new_path}${count}.`);
      },
    ),
});
