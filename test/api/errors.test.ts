/**
 * The `error` codes of /api answers: one style, lower snake case (as OAuth's `invalid_grant`), whichever
 * layer refused the request.
 */
import { describe, expect, it } from "vitest";
import { freshContext } from "../helpers/clients";
import { api, createContext, mint } from "../helpers/teams";

const SNAKE = /^[a-z]+(_[a-z]+)*$/;

describe("/api error codes", () => {
  it("answers each kind of refusal with its lower snake_case code", async () => {
    const reader = await mint([{ context: "x", role: "read" }]);
    const existing = freshContext("codes");
    await createContext(existing);
    const cases: [string, Promise<Response>, number, string][] = [
      ["bad body", api("/tokens", { method: "POST", json: { name: "ok-name", grants: [] } }), 400, "invalid"],
      ["bad query", api("/audit?limit=0"), 400, "invalid"],
      ["bad context name", api("/contexts/Bad%20Name/export"), 400, "invalid_context"],
      ["a token on an admin route", api("/tokens", {}, reader.token), 403, "forbidden"],
      ["no grant on the context", api(`/contexts/${existing}/export`, {}, reader.token), 403, "forbidden"],
      ["unknown token id", api("/tokens/tok_0000000000000001", { method: "DELETE" }), 404, "not_found"],
      ["existing context", api("/contexts", { method: "POST", json: { name: existing } }), 409, "conflict"],
      ["bad media type", api("/contexts", { method: "POST", body: "x", headers: { "Content-Type": "text/plain" } }), 415, "unsupported_media_type"],
    ];
    for (const [label, pending, status, code] of cases) {
      const res = await pending;
      const body = (await res.json()) as { error: string; message: string };
      expect([res.status, body.error], label).toEqual([status, code]);
      expect(body.error, label).toMatch(SNAKE);
      expect(body.message, label).toBeTruthy();
    }
  });
});
