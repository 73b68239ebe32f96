import { describe, expect, it } from "vitest";
import { connectV1 } from "./helpers/clients";
import { authorize } from "./helpers/oauth";
import { ADMIN, BASE, bearer, secured } from "./helpers/teams";

describe("smoke", () => {
  it("runs", async () => {
    const issued = await authorize(ADMIN);
    const client = await connectV1({ url: `${BASE}/mcp`, fetch: secured, headers: bearer(issued.access) });
    const r = await client.call("list_contexts", {});
    expect(r.isError).toBeFalsy();
    await client.close();
  });
});
