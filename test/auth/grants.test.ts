import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ALL, globMatches, grantProblem, MAX_GRANT_STARS, mayCreate, roleFor, type Grant } from "../../src/auth/grants";

/** The obvious regex for a glob: the property test's reference (it backtracks, so only on short inputs). */
const reference = (pattern: string, name: string) =>
  new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[.\\^$+?()[\]{}|-]/g, "\\$&"))
      .join(".*")}$`,
  ).test(name);

describe("grants", () => {
  it("matches exact names, prefix, suffix and infix globs, and * alone, over whole names only", () => {
    expect(globMatches("team-api", "team-api")).toBe(true);
    expect(globMatches("team-api", "team-api2")).toBe(false);
    expect(globMatches("team-*", "team-api")).toBe(true);
    expect(globMatches("team-*", "team-")).toBe(true);
    expect(globMatches("team-*", "xteam-api")).toBe(false);
    expect(globMatches("*-docs", "api-docs")).toBe(true);
    expect(globMatches("a*z", "a.b_c-z")).toBe(true);
    expect(globMatches("*", "anything.at-all")).toBe(true);
    // '.' in a pattern is a literal dot, not a regex wildcard.
    expect(globMatches("v1.*", "v1x2")).toBe(false);
  });

  it("gives the highest role among matching grants, and none when nothing matches", () => {
    const grants: Grant[] = [
      { context: "*", role: "read" },
      { context: "team-*", role: "write" },
      { context: "team-core", role: "admin" },
    ];
    expect(roleFor(grants, "random")).toBe("read");
    expect(roleFor(grants, "team-x")).toBe("write");
    expect(roleFor(grants, "team-core")).toBe("admin");
    expect(roleFor([{ context: "team-*", role: "write" }], "ops")).toBeUndefined();
  });

  it("allows creating on first use under a create grant or an admin grant only", () => {
    const grants: Grant[] = [
      { context: "proj-*", role: "write", create: true },
      { context: "team-*", role: "write" },
      { context: "ops-*", role: "admin" },
    ];
    expect(mayCreate(grants, "proj-new")).toBe(true);
    expect(mayCreate(grants, "team-new")).toBe(false);
    expect(mayCreate(grants, "ops-new")).toBe(true);
    expect(mayCreate(ALL, "whatever")).toBe(true);
  });

  it("names the bad grant and field", () => {
    expect(grantProblem([])).toContain("at least one");
    expect(grantProblem([{ context: "Team", role: "read" }])).toContain("grants[0].context");
    expect(grantProblem([{ context: "x", role: "read", create: true }])).toContain("create needs role write or admin");
    expect(grantProblem([{ context: "x", role: "write", create: true }])).toBeUndefined();
  });

  it("answers the patterns that made a backtracking regex run for seconds and minutes", () => {
    // A backtracking regex took 15.7 s on the first and about 9 minutes on the second; the linear scan answers
    // them as it answers any name. No clock is read: a backtracking matcher would run past the test's timeout on the second.
    const cases: [string, string][] = [
      ["*a*a*a*a*a*a*a*b", "a".repeat(64)],
      ["*-*-*-*-*-*-*-*-*-*-prod", `a${"-".repeat(63)}`],
      ["*a*a*a*a*a*a*a*a", `${"a".repeat(63)}b`],
    ];
    for (const [pattern, name] of cases) expect(globMatches(pattern, name), pattern).toBe(false);
    expect(roleFor([{ context: "*a*a*a*a*a*a*a*b", role: "read" }], "a".repeat(64))).toBeUndefined();
  });

  it("agrees with the reference regex on random small patterns and names", () => {
    const alphabet = ["a", "b", "-", "."];
    const name = fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 12 });
    const pattern = fc.string({ unit: fc.constantFrom(...alphabet, "*", "*"), maxLength: 10 });
    fc.assert(
      fc.property(pattern, name, (p, n) => globMatches(p, n) === reference(p, n)),
      { numRuns: 5000 },
    );
    // And on names built to match, which random pairs rarely are.
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 3 }), { minLength: 1, maxLength: 5 }),
        fc.array(fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 3 }), { minLength: 5, maxLength: 5 }),
        (parts, fills) => {
          const p = parts.join("*");
          const n = parts.map((part, i) => (i === 0 ? part : `${fills[i - 1]}${part}`)).join("");
          return globMatches(p, n) && reference(p, n);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it(`refuses a grant with more than ${MAX_GRANT_STARS} "*", naming it and the limit`, () => {
    const nine = "*a".repeat(9);
    expect(
      grantProblem([
        { context: "x", role: "read" },
        { context: nine, role: "read" },
      ]),
    ).toBe(`grants[1].context: ${JSON.stringify(nine)} has 9 "*"; a grant holds at most ${MAX_GRANT_STARS}`);
    expect(grantProblem([{ context: "*a".repeat(MAX_GRANT_STARS), role: "read" }])).toBeUndefined();
  });
});
