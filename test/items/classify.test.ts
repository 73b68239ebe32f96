/**
 * Categories: the keyword classifier's documented rules
 * (src/items/classify.ts), an explicit category on create_entities (and
 * its validation), and files and documents classified as their content is
 * written.
 */
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { Db } from "../../src/storage/sql";
import { classify, classifyDocument, classifyEntity, classifyFile, asciiHits, KEYWORDS, MAX_CLASSIFY_CHARS, unicodeHits } from "../../src/items/classify";
import { registered, stubOf } from "../helpers/context";
import { CLIENTS, freshContext, text } from "../helpers/clients";

describe("keyword classifier", () => {
  it("counts the same keywords in ASCII text on its fast path as by splitting normalised text", () => {
    const normalised = (t: string) =>
      t
        .normalize("NFKC")
        .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
        .toLowerCase();
    const same = (t: string) => {
      expect(asciiHits(t)).toEqual(unicodeHits(normalised(t)));
    };
    for (const t of ["Bugs in the APIs; apiServer bugsDB k8s K8S dbs hi his tvs", "DockerKubernetes gitHub GITHUB x-docker_redis.sql", "", "s ss sss"]) same(t);
    // Keywords, their plurals and prefixes, glued by case changes, digits and separators.
    const keyword = fc.constantFrom(...Object.values(KEYWORDS).flat());
    const piece = fc.oneof(
      keyword,
      keyword.map((k) => `${k}s`),
      keyword.map((k) => k.toUpperCase()),
      keyword.map((k) => k[0]?.toUpperCase() + k.slice(1)),
      keyword.map((k) => k.slice(0, -1)),
      fc.constantFrom(" ", "  ", "-", "_", ".", "7", "x", "z", "Z", "S", "s", "A", "\n", "/"),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => same(pieces.join(""))),
      { numRuns: 5000 },
    );
  });

  it.each([
    ["Alice", "person", ["prefers tea", "birthday in May"], "personal"],
    ["Billing service", "service", ["written in TypeScript", "uses Postgres"], "technical"],
    ["Q3 launch", "milestone", ["deadline is September", "owner: Bob"], "project"],
    ["Friday", "event", ["team lunch and a movie after"], "casual"],
    ["Blue", "colour", ["a calm shade"], "general"],
  ] as const)("classifies %s (%s) as %s", (name, type, observations, category) => {
    expect(classifyEntity(name, type, observations)).toBe(category);
  });

  it("weighs the title part three times the body", () => {
    // One technical word in the title beats two project words in the body.
    expect(classify("database", "the plan and the deadline")).toBe("technical");
    expect(classify("notes", "the plan and the deadline about a database")).toBe("project");
  });

  it("caps a repeated keyword at three points", () => {
    // "bug" ten times scores 3; four distinct project words score 4.
    expect(classify("", `${"bug ".repeat(10)} plan deadline milestone roadmap`)).toBe("project");
  });

  it("breaks ties in the order personal, technical, project, casual", () => {
    expect(classify("", "friend code")).toBe("personal");
    expect(classify("", "code plan")).toBe("technical");
    expect(classify("", "plan lunch")).toBe("project");
  });

  it("matches plurals, camelCase parts and any case", () => {
    expect(classify("", "Bugs everywhere")).toBe("technical");
    expect(classify("birthdayParty", "")).toBe("personal");
    expect(classify("", "DEADLINE")).toBe("project");
  });

  it("matches CJK keywords inside running text", () => {
    expect(classify("", "データベース設計について")).toBe("technical");
    expect(classify("", "来週のプロジェクト計画")).toBe("project");
    expect(classify("", "# メモ帳\n")).toBe("general");
  });

  it("reads only the start of a long body, and is deterministic", () => {
    const long = `${"x ".repeat(MAX_CLASSIFY_CHARS)} database`;
    expect(classify("", long)).toBe("general");
    expect(classifyFile("notes/project-plan.md", "")).toBe("project");
    // A tie is decided by the documented order (personal first), not by which keyword comes first.
    expect(classify("", "database family")).toBe("personal");
    expect(classify("", "family database")).toBe("personal");
    expect(classifyDocument("db_schema", "Schema", "tables and indexes")).toBe("technical");
  });
});

const categoryOf = (ctx: string, table: "entities" | "files" | "documents", key: string, value: string) =>
  runInDurableObject(
    stubOf(ctx),
    (_i: MemoryContext, state) => new Db(state.storage.sql).one<{ category: string }>(`SELECT category FROM ${table} WHERE ${key} = ?`, value)?.category,
  );

describe.each(CLIENTS)("categories through the tools with %s client", (_label, connect) => {
  it("create_entities keeps an explicit category and classifies the rest", async () => {
    const ctx = freshContext("cat");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    const r = await c.call("create_entities", {
      entities: [
        { name: "Alice", entityType: "person", observations: ["prefers tea"] },
        { name: "Postgres", entityType: "database", observations: [], category: "casual" },
      ],
    });
    expect(r.isError).toBeFalsy();
    // The official output shape: the category is not echoed.
    expect(r.structuredContent).toEqual({
      entities: [
        { name: "Alice", entityType: "person", observations: ["prefers tea"] },
        { name: "Postgres", entityType: "database", observations: [] },
      ],
    });
    expect(await categoryOf(ctx, "entities", "name", "Alice")).toBe("personal");
    expect(await categoryOf(ctx, "entities", "name", "Postgres")).toBe("casual");
    await c.close();
  });

  it("rejects an unknown category naming the allowed ones, and creates nothing", async () => {
    const ctx = await registered(freshContext("cat"));
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    const r = await c.call("create_entities", {
      entities: [
        { name: "ok", entityType: "t", observations: [] },
        { name: "bad", entityType: "t", observations: [], category: "work" },
      ],
    });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain("category must be one of personal, technical, project, casual, general");
    const graph = await c.call("read_graph");
    expect(graph.structuredContent).toMatchObject({ entities: [] });
    await c.close();
  });

  it("classifies files and documents when written, and again when their content changes", async () => {
    const ctx = freshContext("cat");
    const c = await connect({ url: `http://localhost/mcp/${ctx}` });
    await c.call("create", { path: "notes/today.md", file_text: "nothing much" });
    expect(await categoryOf(ctx, "files", "path", "notes/today.md")).toBe("general");
    await c.call("str_replace", { path: "notes/today.md", old_str: "nothing much", new_str: "fix the database bug" });
    expect(await categoryOf(ctx, "files", "path", "notes/today.md")).toBe("technical");

    // A new child is "# lunch": casual by its id; filled with a plan it becomes a project document.
    await c.call("update_document", { id: "root", content: "# Root\n\n[[lunch]]" });
    expect(await categoryOf(ctx, "documents", "id", "lunch")).toBe("casual");
    await c.call("update_document", { id: "lunch", content: "# Plan\n\nmilestone, deadline and budget for the launch" });
    expect(await categoryOf(ctx, "documents", "id", "lunch")).toBe("project");
    await c.close();
  });
});
