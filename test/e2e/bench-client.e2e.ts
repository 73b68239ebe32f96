import { getEventListeners } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchOwnSignal } from "../../bench/lib/engram.mjs";

/** The bench's MCP client fetch (bench/lib/engram.mjs), against a local HTTP server in Node, where the bench runs. */
describe("the bench client's fetch", () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        if (request.url === "/slow") {
          response.writeHead(200, { "Content-Type": "application/json" });
          response.write('{"partial":');
          return; // never ends: the caller aborts
        }
        response.writeHead(201, { "Content-Type": "application/json", "X-Seen": request.method ?? "" });
        response.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("leaves no abort listener on the shared signal once each answer is read, over more requests than the warning's 1,500", async () => {
    const shared = new AbortController();
    for (let i = 0; i < 1600; i++) {
      const response = await fetchOwnSignal(`${url}/`, { method: "POST", body: "{}", signal: shared.signal });
      expect(await response.json()).toEqual({ ok: true });
    }
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
  });

  it("passes the answer through unchanged: status, headers, body and address", async () => {
    const response = await fetchOwnSignal(`${url}/here`, { method: "POST", body: "{}", signal: new AbortController().signal });
    expect(response.status).toBe(201);
    expect(response.headers.get("X-Seen")).toBe("POST");
    expect(response.url).toBe(`${url}/here`);
    expect(await response.text()).toBe('{"ok":true}');
  });

  it("still aborts a request whose body is being read when the shared signal aborts, and then drops its listener", async () => {
    const shared = new AbortController();
    const response = await fetchOwnSignal(`${url}/slow`, { method: "POST", body: "{}", signal: shared.signal });
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(1);
    const read = response.text();
    shared.abort(new Error("client closed"));
    await expect(read).rejects.toThrow();
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
  });

  it("drops the listener when the reader cancels the body", async () => {
    const shared = new AbortController();
    const response = await fetchOwnSignal(`${url}/slow`, { method: "POST", body: "{}", signal: shared.signal });
    await response.body?.cancel();
    expect(getEventListeners(shared.signal, "abort")).toHaveLength(0);
  });
});
