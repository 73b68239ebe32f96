import { describe, expect, it } from "vitest";
import { connectV1, connectV2, workerFetch, type Fetch } from "../helpers/clients";

function recording(): { fetch: Fetch; versions: Set<string>; bodies: string[] } {
  const inner = workerFetch();
  const versions = new Set<string>();
  const bodies: string[] = [];
  return {
    versions,
    bodies,
    fetch: async (input, init) => {
      const req = new Request(input, init);
      const v = req.headers.get("mcp-protocol-version");
      if (v) versions.add(v);
      bodies.push(await req.clone().text());
      return inner(req);
    },
  };
}

describe("protocol eras", () => {
  it("serves the v2 client on the 2026-07-28 stateless protocol", async () => {
    const r = recording();
    const c = await connectV2({ fetch: r.fetch });
    await c.listTools();
    await c.close();
    expect([...r.versions]).toContain("2026-07-28");
    expect(r.bodies.some((b) => b.includes('"method":"initialize"'))).toBe(false);
  });

  it("serves the v1 client with the 2025 initialize handshake", async () => {
    const r = recording();
    const c = await connectV1({ fetch: r.fetch });
    await c.listTools();
    await c.close();
    expect(r.bodies.some((b) => b.includes('"method":"initialize"'))).toBe(true);
    expect([...r.versions].every((v) => v.startsWith("2025-"))).toBe(true);
  });
});
