/** Path normalisation and line arithmetic of the file memory, as pure functions. */
import { describe, expect, it } from "vitest";
import { DomainError } from "../../src/errors";
import { ancestors, normalisePath } from "../../src/files/path";
import { insertAfterLine, lineAt, occurrences, splitLines } from "../../src/files/text";
import { renderFile, renderTree } from "../../src/files/view";

describe("normalisePath", () => {
  it.each([
    ["notes/a.md", "notes/a.md"],
    ["/notes/a.md", "notes/a.md"],
    ["./notes//a.md/", "notes/a.md"],
    ["notes/./a.md", "notes/a.md"],
    ["/", ""],
    ["//./", ""],
    ["memories/x.md", "memories/x.md"],
    ["a b/ü.md", "a b/ü.md"],
  ])("%j becomes %j", (raw, canonical) => {
    expect(normalisePath(raw)).toBe(canonical);
  });

  it.each([
    "../x",
    "a/../b",
    "..",
    "C:\\x",
    "c:/x",
    "\\\\srv\\share",
    "~/x",
    "~",
    "file:///etc/passwd",
    "https://x/y",
    "a\u0000b",
    "a\nb",
    "a\u0085b",
    "",
    "x".repeat(513),
  ])("rejects %j as an Invalid domain error", (raw) => {
    expect(() => normalisePath(raw)).toThrow(DomainError);
  });

  it("names the field in its message", () => {
    expect(() => normalisePath("../x", "new_path")).toThrow(/^new_path "..\/x": /);
  });

  it("lists a path's directories outermost first", () => {
    expect(ancestors("a/b/c.md")).toEqual(["a", "a/b"]);
    expect(ancestors("c.md")).toEqual([]);
  });
});

describe("line arithmetic", () => {
  it("treats a final line break as the end of the last line", () => {
    expect(splitLines("a\nb\n")).toEqual({ lines: ["a", "b"], trailingNewline: true });
    expect(splitLines("a\n\n")).toEqual({ lines: ["a", ""], trailingNewline: true });
    expect(splitLines("")).toEqual({ lines: [], trailingNewline: false });
  });

  it("inserts after a line and keeps the file's own ending", () => {
    expect(insertAfterLine("a\nb\n", 1, "x")).toBe("a\nx\nb\n");
    expect(insertAfterLine("a\nb", 2, "x\n")).toBe("a\nb\nx");
    // An empty file takes the inserted text's own ending: one blank line is a line.
    expect(insertAfterLine("", 0, "\n")).toBe("\n");
    expect(insertAfterLine("", 0, "x")).toBe("x");
    expect(insertAfterLine("", 0, "x\ny\n")).toBe("x\ny\n");
    expect(insertAfterLine("", 0, "x")).toBe("x");
  });

  it("finds overlapping occurrences and their lines", () => {
    expect(occurrences("aaa", "aa")).toEqual([0, 1]);
    expect(lineAt("one\ntwo\nthree", 8)).toBe(3);
  });
});

describe("rendering", () => {
  it("cuts a single line longer than the whole budget instead of showing nothing", () => {
    const v = renderFile("x.md", `${"y".repeat(500)}\nnext`, undefined, 100);
    expect(v.text).toContain("[line 1 cut at 100 of 506 characters]");
    expect(v.text).toContain("View the rest with view_range: [2, -1]");
  });

  it("names a subdirectory to view when a tree is cut short", () => {
    const paths = Array.from({ length: 50 }, (_, i) => `big/f${String(i).padStart(2, "0")}.md`);
    const t = renderTree("", paths, 50, 200);
    expect(t.truncated).toBe(true);
    expect(t.text).toMatch(/\[Showing \d+ of 50 files\. View a subdirectory \(e\.g\. view big\/\) to see the rest\.\]$/);
  });
});
