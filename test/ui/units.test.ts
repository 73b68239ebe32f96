/** The web page's pure pieces: the search graph and its layout, item keys, links, context choices. */
import { describe, expect, it } from "vitest";
import { formatBytes, searchMode } from "../../src/ui/client/changes";
import { contextChoices, roleFor } from "../../src/ui/client/contexts";
import { graphOf, labelWidth, layout, mergeGraphs, searchSummary } from "../../src/ui/client/graph";
import { docLinks, parseItem } from "../../src/ui/client/trees";

const entity = (name: string, extra: Record<string, unknown> = {}) => ({ name, entityType: "t", observations: ["o"], ...extra });

describe("search results as a graph", () => {
  it("uses the engine's roles, scores and paths when present", () => {
    const g = graphOf({
      entities: [entity("A", { role: "entry", score: 3.5 }), entity("B", { role: "connector", score: 0 }), entity("C", { role: "entry", score: 2 })],
      relations: [
        { from: "A", to: "B", relationType: "r" },
        { from: "B", to: "C", relationType: "r" },
        { from: "A", to: "C", relationType: "s" },
      ],
      paths: [["A", "B", "C"]],
    });
    expect(g.hasRoles).toBe(true);
    expect(g.nodes.map((n) => [n.id, n.role, n.score])).toEqual([
      ["A", "entry", 3.5],
      ["B", "connector", 0],
      ["C", "entry", 2],
    ]);
    expect(g.edges.map((e) => `${e.from}-${e.to}:${e.onPath}`)).toEqual(["A-B:true", "B-C:true", "A-C:false"]);
  });

  it("degrades to plain matches without roles or paths, and drops relations leaving the result", () => {
    const g = graphOf({
      entities: [entity("A"), entity("B"), entity("A")],
      relations: [
        { from: "A", to: "B", relationType: "r" },
        { from: "A", to: "Elsewhere", relationType: "r" },
        { from: "A", to: "A", relationType: "self" },
      ],
    });
    expect(g.hasRoles).toBe(false);
    expect(g.nodes.map((n) => [n.id, n.role, n.score])).toEqual([
      ["A", "other", undefined],
      ["B", "other", undefined],
    ]);
    expect(g.edges).toEqual([{ from: "A", to: "B", relationType: "r", onPath: false }]);
  });

  it("sums a search up in the singular where one was found, and says when nothing was", () => {
    const one = graphOf({ entities: [entity("A", { role: "entry" }), entity("B", { role: "connector" })], relations: [{ from: "A", to: "B", relationType: "r" }] });
    expect(searchSummary("a", one, 1)).toBe("2 entities (1 entry node), 1 relation, 1 path.");
    const plain = graphOf({ entities: [entity("A"), entity("B"), entity("C")], relations: [] });
    expect(searchSummary("a", plain)).toBe("3 entities, 0 relations.");
    expect(searchSummary("zebra", graphOf({ entities: [], relations: [] }))).toBe("Nothing found for “zebra”.");
  });

  it("lays out the same graph the same way, with no two nodes on one spot and at most 10% of 50 labels overlapping", () => {
    const words = ["billing", "service", "Alice", "Postgres", "auth", "gateway", "queue", "worker"];
    const names = Array.from({ length: 50 }, (_, i) => `${words[i % words.length]} ${words[(i * 5) % words.length]} ${i}`);
    const result = {
      entities: names.map((n, i) => entity(n, { role: i < 3 ? "entry" : "connector" })),
      relations: [
        ...names.slice(1).map((n, i) => ({ from: names[Math.floor(i / 3)] ?? "", to: n, relationType: "next" })),
        ...names.slice(10).map((n, i) => ({ from: names[(i * 7) % 50] ?? "", to: n, relationType: "also" })),
      ],
    };
    const a = layout(graphOf(result));
    const b = layout(graphOf(result));
    expect([...a.entries()]).toEqual([...b.entries()]);
    const points = [...a.values()];
    expect(new Set(points.map((p) => `${p.x},${p.y}`)).size).toBe(50);
    // Label boxes as the view draws them: centred under the node, 16 px high.
    const boxes = names.map((n) => {
      const p = a.get(n) ?? { x: 0, y: 0 };
      const w = labelWidth(n);
      return { x: p.x - w / 2, y: p.y + 12, w, h: 16 };
    });
    const overlapping = boxes.filter((q, i) => boxes.some((o, j) => j !== i && o.x < q.x + q.w && q.x < o.x + o.w && o.y < q.y + q.h && q.y < o.y + o.h));
    expect(overlapping.length).toBeLessThanOrEqual(5);
  });

  it("starts a node brought into the picture next to its placed neighbour, and keeps the others near their places", () => {
    const base = graphOf({ entities: ["a", "b", "c"].map((n) => entity(n)), relations: [{ from: "a", to: "b", relationType: "r" }] });
    const before = layout(base);
    const more = graphOf({ entities: [entity("c"), entity("d")], relations: [{ from: "c", to: "d", relationType: "r" }] });
    const merged = mergeGraphs(base, more);
    expect(merged.nodes.map((n) => n.id)).toEqual(["a", "b", "c", "d"]);
    expect(merged.edges).toHaveLength(2);
    const after = layout(merged, { previous: before });
    const d = (p: { x: number; y: number } | undefined, q: { x: number; y: number } | undefined) => Math.hypot((p?.x ?? 0) - (q?.x ?? 0), (p?.y ?? 0) - (q?.y ?? 0));
    expect(d(after.get("d"), after.get("c"))).toBeLessThan(d(after.get("d"), after.get("a")));
  });

  it("draws related nodes closer together than unrelated ones", () => {
    // Two triangles joined by nothing: within a triangle, nodes sit nearer than across.
    const result = {
      entities: ["a1", "a2", "a3", "b1", "b2", "b3"].map((n) => entity(n)),
      relations: [
        ["a1", "a2"],
        ["a2", "a3"],
        ["a3", "a1"],
        ["b1", "b2"],
        ["b2", "b3"],
        ["b3", "b1"],
      ].map(([from, to]) => ({ from: from ?? "", to: to ?? "", relationType: "r" })),
    };
    const p = layout(graphOf(result));
    const d = (x: string, y: string) => Math.hypot((p.get(x)?.x ?? 0) - (p.get(y)?.x ?? 0), (p.get(x)?.y ?? 0) - (p.get(y)?.y ?? 0));
    const within = (d("a1", "a2") + d("a2", "a3") + d("b1", "b2") + d("b2", "b3")) / 4;
    const across = (d("a1", "b1") + d("a2", "b2") + d("a3", "b3")) / 3;
    expect(within).toBeLessThan(across);
  });

  it("places a single node at the origin", () => {
    expect([...layout(graphOf({ entities: [entity("A")] })).values()]).toEqual([{ x: 0, y: 0 }]);
  });
});

describe("item keys and links", () => {
  it("splits item keys into kind and name, names may hold colons", () => {
    expect(parseItem("entity:Alice")).toEqual({ kind: "entity", name: "Alice" });
    expect(parseItem("file:notes/a:b.md")).toEqual({ kind: "file", name: "notes/a:b.md" });
    expect(parseItem("doc:root")).toEqual({ kind: "doc", name: "root" });
    expect(parseItem("weird")).toBeUndefined();
    expect(parseItem("mark:x")).toBeUndefined();
  });

  it("finds a document's [[links]] in order, each once, and only valid ids", () => {
    expect(docLinks("[[b]] text [[a_1]] [[b]] [[not valid]] [[c-2]]")).toEqual(["b", "a_1", "c-2"]);
  });
});

describe("which contexts the page offers", () => {
  const listed = {
    contexts: [
      { name: "team-api", description: "", readOnly: false, role: "write" as const },
      { name: "team-web", description: "", readOnly: true, role: "read" as const },
    ],
    current: "default",
    grants: [
      { context: "team-*", role: "write" as const },
      { context: "team-web", role: "read" as const },
    ],
  };

  it("takes the highest role any matching grant gives, globs included", () => {
    expect(roleFor(listed.grants, "team-api")).toBe("write");
    expect(
      roleFor(
        [
          { context: "*", role: "read" },
          { context: "x.y", role: "admin" },
        ],
        "x.y",
      ),
    ).toBe("admin");
    expect(roleFor([{ context: "x.y", role: "admin" }], "xzy")).toBeUndefined();
    expect(roleFor(listed.grants, "default")).toBeUndefined();
  });

  it("offers the default context only to a caller with a grant on it, and remembers the tab's choice", () => {
    expect(contextChoices(listed, null).choices.map((c) => c.name)).toEqual(["team-api", "team-web"]);
    expect(contextChoices(listed, null).first?.name).toBe("team-api");
    expect(contextChoices(listed, "team-web").first?.name).toBe("team-web");
    const local = contextChoices({ contexts: [], current: "default", grants: [{ context: "*", role: "admin" }] }, "gone");
    expect(local.choices).toEqual([{ name: "default", description: "", readOnly: false, role: "admin" }]);
    expect(contextChoices({ contexts: [], current: "default", grants: [] }, null).first).toBeUndefined();
  });

  it("shows sizes in readable units", () => {
    expect([formatBytes(512), formatBytes(1536), formatBytes(150 * 1024), formatBytes(3 * 1024 ** 3)]).toEqual(["512 B", "1.5 KB", "150 KB", "3.0 GB"]);
  });
});

describe("searchMode", () => {
  it("says lexical, or hybrid with how many items are embedded and how many wait", () => {
    expect(searchMode(undefined)).toBe("lexical");
    expect(searchMode({ mode: "lexical", embedded: 0, queued: 0, oldestQueuedMs: 0 })).toBe("lexical");
    expect(searchMode({ mode: "hybrid", embedded: 12, queued: 0, oldestQueuedMs: 0 })).toBe("hybrid, 12 embedded");
    expect(searchMode({ mode: "hybrid", embedded: 12, queued: 3, oldestQueuedMs: 5_400 })).toBe("hybrid, 12 embedded, 3 waiting (oldest 5 s)");
  });
});
