/**
 * Text the administration API takes and then shows to models and pages as
 * sent: a context's description (add_context, /api/contexts; list_contexts
 * and the web page show it beside the name) and a webhook's URL (the
 * webhook list). Both follow the name rule of src/text.ts: a NUL, a line
 * break, a bidirectional control or an invisible character is refused on
 * every door with the same message as in a name, and nothing changes.
 */
import { describe, expect, it } from "vitest";
import { CLIENTS, freshContext, text } from "../helpers/clients";
import { api, connectAs, ADMIN, createContext } from "../helpers/teams";

const RULE = "must not contain control characters, invisible (default-ignorable) characters outside emoji and joining scripts";

/** [what, text, the code point and index the refusal names] */
const HIDDEN: [string, string, string][] = [
  ["a NUL", "a\u0000b", "U+0000 at index 1 (a control character)"],
  ["a right-to-left override", "ab\u202e", "U+202E at index 2 (a bidirectional control)"],
  ["a line break", "one\ntwo", "U+000A at index 3 (a control character)"],
  ["a zero-width space", "a\u200bb", "U+200B at index 1 (an invisible character)"],
];

const listed = async () => ((await (await api("/contexts")).json()) as { contexts: { name: string; description: string }[] }).contexts;

describe.each(CLIENTS)("context descriptions (%s)", (_label, connect) => {
  it.each(HIDDEN)("refuses %s in add_context, and registers nothing", async (_what, description, where) => {
    const name = freshContext("desc");
    const c = await connectAs(connect, ADMIN);
    const r = await c.call("add_context", { name, description });
    expect(r.isError).toBe(true);
    expect(text(r)).toContain(`description: description ${RULE}`);
    expect(text(r)).toContain(where);
    await c.close();
    expect((await listed()).map((x) => x.name)).not.toContain(name);
  });
});

describe("context descriptions on /api/contexts", () => {
  it.each(HIDDEN)("refuses %s in POST and PATCH with 400 naming it, and changes nothing", async (_what, description, where) => {
    const name = freshContext("desc");
    const post = await api("/contexts", { method: "POST", json: { name, description } });
    expect(post.status).toBe(400);
    const refusal = (await post.json()) as { error: string; message: string };
    expect(refusal.error).toBe("invalid");
    expect(refusal.message.startsWith(`description: description ${RULE}`)).toBe(true);
    expect(refusal.message.endsWith(`: ${where}`)).toBe(true);
    expect((await listed()).map((x) => x.name)).not.toContain(name);

    await createContext(name, { description: "kept" });
    const patch = await api(`/contexts/${name}`, { method: "PATCH", json: { description } });
    expect(patch.status).toBe(400);
    expect(((await patch.json()) as { message: string }).message).toContain(where);
    expect((await listed()).find((x) => x.name === name)?.description).toBe("kept");
  });

  it("keeps emoji and the joiners of joining scripts, as names do", async () => {
    const name = freshContext("desc");
    const description = "Launch ❤️ team, 👩‍💻 and مهر\u200cناز";
    await createContext(name, { description });
    expect((await listed()).find((x) => x.name === name)?.description).toBe(description);
  });
});

describe("webhook URLs", () => {
  it.each([
    ["a tab, which the URL parser would drop", "https://hooks.exa\tmple.com/x", "U+0009 at index 17 (a control character)"],
    ["a right-to-left override", "https://hooks.example.com/\u202egpj.exe", "U+202E at index 26 (a bidirectional control)"],
    ["a zero-width space", "https://hooks.example.com/a\u200b", "U+200B at index 27 (an invisible character)"],
  ])("refuses %s with 400 naming it, and adds nothing", async (_what, url, where) => {
    const context = freshContext("hook");
    await createContext(context);
    const res = await api(`/contexts/${context}/webhooks`, { method: "POST", json: { url, secret: "a-webhook-secret-of-32-characters" } });
    expect(res.status).toBe(400);
    const { message } = (await res.json()) as { message: string };
    expect(message).toContain(`url: url ${RULE}`);
    expect(message).toContain(where);
    expect(((await (await api(`/contexts/${context}/webhooks`)).json()) as { webhooks: unknown[] }).webhooks).toEqual([]);
  });
});
