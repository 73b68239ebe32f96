/**
 * The file-style memory tools end to end, through both MCP clients: the
 * command set of Anthropic's memory tool, its error messages, and that a
 * rejected call changes nothing.
 */
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits";
import { CLIENTS, freshContext, text, type TestClient } from "../helpers/clients";
import { registered } from "../helpers/context";

const first = (r: { content: { text?: string }[] }) => r.content[0]?.text ?? "";

describe.each(CLIENTS)("file memory (%s)", (_label, connect) => {
  const open = async () => connect({ url: `http://localhost/mcp/${await registered(freshContext("files"))}` });

  async function tree(c: TestClient) {
    return first(await c.call("view", { path: "/" }));
  }

  it("creates a file and views it as numbered lines", async () => {
    const c = await open();
    const created = await c.call("create", { path: "notes/a.md", file_text: "# My Notes\nsecond\n" });
    expect(created.isError).toBeFalsy();
    expect(created.structuredContent).toEqual({ path: "notes/a.md", created: true, lines: 2, bytes: 18 });
    const v = await c.call("view", { path: "notes/a.md" });
    expect(first(v)).toBe("   1: # My Notes\n   2: second");
    expect(v.structuredContent).toMatchObject({ path: "notes/a.md", type: "file", lines: { from: 1, to: 2, total: 2 }, truncated: false, related: [] });
    await c.close();
  });

  it("shows a directory as a sorted recursive tree, one space per level, directories with a trailing slash", async () => {
    const c = await open();
    for (const path of ["zeta.md", "notes/b.md", "notes/a.md", "notes/deep/x.md", "alpha/one.md"]) {
      await c.call("create", { path, file_text: "x" });
    }
    expect(await tree(c)).toBe(["/", " alpha/", "  one.md", " notes/", "  a.md", "  b.md", "  deep/", "   x.md", " zeta.md"].join("\n"));
    expect(first(await c.call("view", { path: "notes/" }))).toBe(["notes/", " a.md", " b.md", " deep/", "  x.md"].join("\n"));
    await c.close();
  });

  it("shows an empty memory and says what is missing", async () => {
    const c = await open();
    expect(await tree(c)).toBe("/\n (empty)");
    const r = await c.call("view", { path: "nope.md" });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("No file or directory at nope.md");
    await c.close();
  });

  it("normalises ./, repeated / and trailing / to one path", async () => {
    const c = await open();
    await c.call("create", { path: "./notes//a.md/", file_text: "one" });
    expect(first(await c.call("view", { path: "/notes/a.md" }))).toBe("   1: one");
    expect(first(await c.call("view", { path: "notes/./a.md" }))).toBe("   1: one");
    expect(await tree(c)).toBe("/\n notes/\n  a.md");
    await c.close();
  });

  it("refuses to overwrite an existing file unless overwrite is true", async () => {
    const c = await open();
    await c.call("create", { path: "a.md", file_text: "keep me" });
    const r = await c.call("create", { path: "a.md", file_text: "wiped" });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("a.md already exists (1 line). Pass overwrite: true");
    expect(first(await c.call("view", { path: "a.md" }))).toBe("   1: keep me");
    const o = await c.call("create", { path: "a.md", file_text: "replaced", overwrite: true });
    expect(o.structuredContent).toMatchObject({ created: false });
    expect(text(o)).toContain("Overwrote a.md");
    expect(first(await c.call("view", { path: "a.md" }))).toBe("   1: replaced");
    await c.close();
  });

  it("replaces text that occurs exactly once", async () => {
    const c = await open();
    await c.call("create", { path: "a.md", file_text: "alpha\nbeta\ngamma\n" });
    const r = await c.call("str_replace", { path: "a.md", old_str: "beta", new_str: "BETA\nmore" });
    expect(r.structuredContent).toEqual({ path: "a.md", line: 2, lines: 4 });
    expect(first(await c.call("view", { path: "a.md" }))).toBe("   1: alpha\n   2: BETA\n   3: more\n   4: gamma");
    await c.close();
  });

  it("rejects str_replace when old_str occurs zero or several times, saying how many and where", async () => {
    const c = await open();
    await c.call("create", { path: "a.md", file_text: "todo\nx\ntodo\ny\ntodo\n" });
    const none = await c.call("str_replace", { path: "a.md", old_str: "missing", new_str: "z" });
    expect(none.isError).toBe(true);
    expect(text(none)).toContain("0 occurrences");
    const many = await c.call("str_replace", { path: "a.md", old_str: "todo", new_str: "done" });
    expect(many.isError).toBe(true);
    expect(text(many)).toContain("occurs 3 times in a.md (lines 1, 3, 5)");
    // Overlapping matches count too: "aa" in "aaa" could mean either.
    await c.call("create", { path: "b.md", file_text: "aaa" });
    expect(text(await c.call("str_replace", { path: "b.md", old_str: "aa", new_str: "b" }))).toContain("occurs 2 times");
    expect(first(await c.call("view", { path: "a.md" }))).toBe("   1: todo\n   2: x\n   3: todo\n   4: y\n   5: todo");
    await c.close();
  });

  it("inserts after a line, at the top with 0, and rejects a line past the end", async () => {
    const c = await open();
    await c.call("create", { path: "a.md", file_text: "one\ntwo\n" });
    await c.call("insert", { path: "a.md", insert_line: 0, insert_text: "top" });
    const r = await c.call("insert", { path: "a.md", insert_line: 2, insert_text: "between\nand more\n" });
    expect(r.structuredContent).toEqual({ path: "a.md", insert_line: 2, linesInserted: 2, lines: 5 });
    await c.call("insert", { path: "a.md", insert_line: 5, insert_text: "end" });
    expect(first(await c.call("view", { path: "a.md" }))).toBe(["   1: top", "   2: one", "   3: between", "   4: and more", "   5: two", "   6: end"].join("\n"));
    const past = await c.call("insert", { path: "a.md", insert_line: 9, insert_text: "x" });
    expect(past.isError).toBe(true);
    expect(text(past)).toContain("insert_line 9 is past the end of a.md (6 lines); use 0 to 6");
    await c.close();
  });

  it("deletes a file, and a directory with everything in it, but never the root", async () => {
    const c = await open();
    for (const path of ["keep.md", "old/a.md", "old/sub/b.md"]) await c.call("create", { path, file_text: "x" });
    expect((await c.call("delete", { path: "old" })).structuredContent).toEqual({ path: "old/", type: "directory", filesDeleted: 2 });
    expect(await tree(c)).toBe("/\n keep.md");
    const root = await c.call("delete", { path: "/" });
    expect(root.isError).toBe(true);
    expect(text(root)).toContain("Refusing to delete the memory root");
    expect((await c.call("delete", { path: "keep.md" })).structuredContent).toEqual({ path: "keep.md", type: "file", filesDeleted: 1 });
    expect((await c.call("delete", { path: "keep.md" })).isError).toBe(true);
    await c.close();
  });

  it("renames files and directories, and refuses to overwrite", async () => {
    const c = await open();
    for (const path of ["a.md", "b.md", "dir/x.md", "dir/y/z.md"]) await c.call("create", { path, file_text: path });
    expect((await c.call("rename", { old_path: "a.md", new_path: "moved/a2.md" })).structuredContent).toEqual({
      old_path: "a.md",
      new_path: "moved/a2.md",
      type: "file",
      filesMoved: 1,
    });
    expect(first(await c.call("view", { path: "moved/a2.md" }))).toBe("   1: a.md");
    expect((await c.call("rename", { old_path: "dir", new_path: "archive/dir" })).structuredContent).toMatchObject({ filesMoved: 2 });
    const taken = await c.call("rename", { old_path: "b.md", new_path: "moved/a2.md" });
    expect(taken.isError).toBe(true);
    expect(text(taken)).toContain("new_path moved/a2.md already exists");
    const inside = await c.call("rename", { old_path: "archive", new_path: "archive/inner" });
    expect(text(inside)).toContain("inside itself");
    expect(await tree(c)).toBe(["/", " archive/", "  dir/", "   x.md", "   y/", "    z.md", " b.md", " moved/", "  a2.md"].join("\n"));
    await c.close();
  });

  it("keeps files and directories apart", async () => {
    const c = await open();
    await c.call("create", { path: "a", file_text: "a file" });
    await c.call("create", { path: "d/x.md", file_text: "x" });
    expect(text(await c.call("create", { path: "a/b.md", file_text: "x" }))).toContain("a is a file, so it cannot contain other files");
    expect(text(await c.call("create", { path: "d", file_text: "x" }))).toContain("path d is a directory");
    expect(text(await c.call("str_replace", { path: "d", old_str: "x", new_str: "y" }))).toContain("d/ is a directory");
    expect(text(await c.call("view", { path: "d", view_range: [1, 2] }))).toContain("view_range applies to files");
    await c.close();
  });

  const escapes: [string, Record<string, unknown>, string][] = [
    ["a .. escape", { path: "../secrets.md" }, '".." is not allowed'],
    ["a nested .. escape", { path: "notes/../../x.md" }, '".." is not allowed'],
    ["a Windows drive path", { path: "C:\\Users\\me\\notes.md" }, "backslashes"],
    ["a drive path with forward slashes", { path: "C:/Users/me/notes.md" }, "Windows drive path"],
    ["a UNC path", { path: "\\\\server\\share\\x.md" }, "backslashes"],
    ["a home-directory path", { path: "~/notes.md" }, "home-directory"],
    ["a URL", { path: "file:///etc/passwd" }, "not a URL"],
    ["a NUL character", { path: "a\u0000b.md" }, "control characters"],
    ["a control character", { path: "a\u001bb.md" }, "control characters"],
    ["a path over 512 characters", { path: `${"d/".repeat(256)}x.md` }, `at most ${LIMITS.filePath} characters`],
    ["an empty path", { path: "" }, "must not be empty"],
    ["the root", { path: "/" }, "must name a file"],
  ];

  it.each(escapes)("rejects %s and writes nothing", async (_what, args, message) => {
    const c = await open();
    await c.call("create", { path: "keep.md", file_text: "kept" });
    const r = await c.call("create", { file_text: "x", ...args });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(message);
    expect(await tree(c)).toBe("/\n keep.md");
    await c.close();
  });

  it("rejects a file over 1 MB, and an edit that would grow one past it", async () => {
    const c = await open();
    const big = await c.call("create", { path: "big.md", file_text: "x".repeat(LIMITS.fileBytes + 1) });
    expect(big.isError).toBe(true);
    expect(text(big)).toContain(`at most ${LIMITS.fileBytes} bytes`);
    await c.call("create", { path: "full.md", file_text: `${"x".repeat(LIMITS.fileBytes - 10)}\nEND` });
    const grown = await c.call("str_replace", { path: "full.md", old_str: "END", new_str: "y".repeat(20) });
    expect(grown.isError).toBe(true);
    expect(text(grown)).toContain("a file holds at most");
    expect((await c.call("view", { path: "full.md", view_range: [2, 2] })).content[0]?.text).toBe("   2: END");
    expect(await tree(c)).toBe("/\n full.md");
    await c.close();
  });

  it("cuts a long view short with a note on how to read the rest, and view_range pages through", async () => {
    const c = await open();
    const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} ${"-".repeat(20)}`);
    await c.call("create", { path: "long.md", file_text: lines.join("\n") });
    const v = await c.call("view", { path: "long.md" });
    const s = v.structuredContent as { lines: { to: number; total: number }; truncated: boolean; text: string };
    expect(s.truncated).toBe(true);
    expect(s.text.length).toBeLessThan(LIMITS.viewChars + 200);
    expect(s.lines.total).toBe(3000);
    expect(s.text).toContain(`[Showing lines 1-${s.lines.to} of 3000. View the rest with view_range: [${s.lines.to + 1}, -1]]`);
    const rest = await c.call("view", { path: "long.md", view_range: [2990, -1] });
    expect(first(rest).split("\n")).toHaveLength(11);
    expect(first(rest)).toContain("3000: line 3000");
    const bad = await c.call("view", { path: "long.md", view_range: [4000, -1] });
    expect(text(bad)).toContain("view_range start 4000 is past the end of long.md (3000 lines)");
    await c.close();
  });
});
