/**
 * Internal errors stay internal: when a memory context's object fails (its
 * stub rejects with an Error or with something that is not one), every answer
 * the Worker controls is generic, with a reference for the log, and carries
 * no message, stack or local path of the failure. The log keeps them.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CLIENTS, freshContext, workerFetch } from "../helpers/clients";
import { registered } from "../helpers/context";

const SECRET_PATH = "/home/dev/engram/src/storage/sql.ts:42:7";
const SECRET_QUERY = "SELECT name FROM entities WHERE id = ?";

/** A MEMORY namespace whose objects reject every call with `reason()`. */
const failing = (reason: () => unknown) =>
  ({
    getByName: () =>
      new Proxy(
        {},
        // `then` stays undefined, so the stub itself is not mistaken for a promise.
        { get: (_target, prop) => (prop === "then" ? undefined : () => Promise.reject(reason())) },
      ),
  }) as unknown as Env["MEMORY"];

const thrown: [string, () => unknown][] = [
  [
    "an Error with a query and a stack",
    () => {
      const e = new Error(`SqlError: ${SECRET_QUERY}: disk I/O error`);
      e.stack = `Error: ${SECRET_QUERY}\n    at exec (${SECRET_PATH})`;
      return e;
    },
  ],
  ["a plain object that is not an Error", () => ({ message: `${SECRET_QUERY} failed`, stack: `at exec (${SECRET_PATH})` })],
  ["a string", () => `failed at ${SECRET_PATH}`],
];

/** No part of the failure in `answer`: not its message, its stack, or a source location. */
function expectClean(answer: string) {
  expect(answer).not.toContain(SECRET_PATH);
  expect(answer).not.toContain(SECRET_QUERY);
  expect(answer).not.toMatch(/\bat .*\.(ts|js):\d+/);
  expect(answer).not.toContain("SqlError");
}

describe("internal errors reach no client", () => {
  let logged: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    // The failures are logged on purpose; the test reads the log instead of printing it.
    logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(() => logged.mockRestore());
  const log = () => JSON.stringify(logged.mock.calls);

  describe.each(thrown)("when the object rejects with %s", (_what, reason) => {
    const f = workerFetch({ MEMORY: failing(reason) });

    it.each(CLIENTS)("answers a tool call with a generic error and a reference (%s)", async (_label, connect) => {
      const context = await registered(freshContext("oops"));
      const c = await connect({ url: `http://localhost/mcp/${context}`, fetch: f });
      const r = await c.call("read_graph");
      expect(r.isError).toBe(true);
      const answer = JSON.stringify(r);
      expect(answer).toMatch(/Internal error \(ref [0-9a-f]{8}\)/);
      expectClean(answer);
      expect(log()).toContain(SECRET_PATH.slice(0, 20));
      await c.close();
    });

    it.each(CLIENTS)("answers a resource read with a generic protocol error (%s)", async (_label, connect) => {
      const context = await registered(freshContext("oops"));
      const c = await connect({ url: `http://localhost/mcp/${context}`, fetch: f });
      const error = await c.readResource("memory://knowledge-graph").then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toMatch(/Internal error \(ref [0-9a-f]{8}\)/);
      expectClean(`${error?.message} ${JSON.stringify(error)}`);
      await c.close();
    });

    it("answers an /api route with a generic 500", async () => {
      const context = await registered(freshContext("oops"));
      const body = JSON.stringify({ type: "entity", name: "a", entityType: "t", observations: [] });
      const res = await f(`http://localhost/api/contexts/${context}/import`, { method: "POST", headers: { "Content-Type": "application/x-ndjson" }, body });
      expect(res.status).toBe(500);
      const answer = await res.text();
      // The import says what it wrote before the call failed (nothing here), with the reference of its log line.
      expect(JSON.parse(answer)).toEqual({
        error: "internal_error",
        message: expect.stringMatching(
          /^The import stopped: Internal server error \(ref [0-9a-f]{8}\)\. `partial` counts what was written before the batch in progress/,
        ),
        partial: expect.objectContaining({ entitiesCreated: 0, rejected: [] }),
      });
      expectClean(answer);
    });
  });
});
