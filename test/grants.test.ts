import { describe, expect, it } from "vitest";
import { ALL, globMatches, grantProblem, mayCreate, roleFor, type Grant } from "../src/auth/grants";

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
});
