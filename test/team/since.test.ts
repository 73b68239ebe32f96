import { afterEach, describe, expect, it } from "vitest";
import { oauthCache } from "../../src/auth/oauth";
import { CLIENTS, connectV1, freshContext, type TestClient } from "../helpers/clients";
import { authorize } from "../helpers/oauth";
import { BASE, bearer, connectAs, createContext, mint, secured, type Minted } from "../helpers/teams";

afterEach(() => oauthCache.clear());

const HEADING = "## Changed since your last look";

async function team(connect: (typeof CLIENTS)[number][1]) {
  const ctx = freshContext("since");
  await createContext(ctx);
  const grants = [{ context: ctx, role: "write" as const }];
  const people: Minted[] = await Promise.all([mint(grants), mint(grants), mint(grants)]);
  const clients = (await Promise.all(people.map((p) => connectAs(connect, p.token, `/mcp/${ctx}`)))) as [TestClient, TestClient, TestClient];
  return { ctx, people, clients, close: () => Promise.all(clients.map((c) => c.close())) };
}

const brief = async (c: TestClient) => (await c.readResource("memory://brief")).contents[0]?.text ?? "";
const briefPrompt = async (c: TestClient) => (await c.getPrompt("brief")).messages[0]?.content.text ?? "";
/** The section's lines, heading excluded; undefined without the section. */
const section = (text: string): string[] | undefined => {
  if (!text.startsWith(HEADING)) return text.includes(HEADING) ? ["(not first)"] : undefined;
  const body = text.slice(HEADING.length + 1);
  return body.slice(0, body.indexOf("\n\n")).split("\n");
};

describe.each(CLIENTS)("changed since your last look (%s client)", (_label, connect) => {
  it("lists what others changed since the caller's previous brief, once, and never the caller's own changes", async () => {
    const { people, clients, close } = await team(connect);
    const [alice, bob, carol] = clients;
    await alice.call("create_entities", { entities: [{ name: "Plan", entityType: "project", observations: ["ships in May"] }] });
    // A first read has no section, and counts as a look.
    expect(section(await brief(alice))).toBeUndefined();
    expect(section(await brief(bob))).toBeUndefined();

    await bob.call("add_observations", { observations: [{ entityName: "Plan", contents: ["needs a designer"] }] });
    await carol.call("create_entities", { entities: [{ name: "Budget", entityType: "doc", observations: [] }] });
    await alice.call("add_observations", { observations: [{ entityName: "Plan", contents: ["alice's own note"] }] });

    const seen = section(await brief(alice)) ?? [];
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatch(new RegExp(`^- entity:Budget: \\+entity Budget \\(by ${people[2]?.name}, \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, create_entities, #\\d+\\)$`));
    expect(seen[1]).toContain(`- entity:Plan: +obs Plan (by ${people[1]?.name}, `);
    expect(seen.join("\n")).not.toContain(people[0]?.name as string);

    // Once read, not listed again; the prompt reads the same section.
    expect(section(await briefPrompt(alice))).toEqual(["Nothing, by anyone else."]);
    // Bob looked before Carol's and Alice's changes, so he sees both, not his own.
    const bobs = section(await briefPrompt(bob)) ?? [];
    expect(bobs.map((l) => l.slice(0, l.indexOf(" ("))).sort()).toEqual(["- entity:Budget: +entity Budget", "- entity:Plan: +obs Plan"]);
    expect(bobs.join("\n")).toContain(`by ${people[0]?.name}`);
    expect(bobs.join("\n")).not.toContain(`by ${people[1]?.name}`);
    await close();
  });

  it("caps the list and counts what it left out", async () => {
    const { clients, close } = await team(connect);
    const [alice, bob] = clients;
    await brief(alice);
    for (let i = 0; i < 12; i++) await bob.call("create_entities", { entities: [{ name: `Item ${i}`, entityType: "t", observations: [] }] });
    const lines = section(await brief(alice)) ?? [];
    expect(lines).toHaveLength(11);
    expect(lines[0]).toContain("entity:Item 11");
    expect(lines[10]).toBe("(2 more not shown: memory_history lists them)");
    expect(section(await brief(alice))).toEqual(["Nothing, by anyone else."]);
    await close();
  });

  it("counts an OAuth app as the token that consented to it: its changes are that reader's own, and its look is that reader's look", async () => {
    const { ctx, people, clients, close } = await team(connect);
    const [alice, bob] = clients;
    const app = await connectV1({ url: `${BASE}/mcp/${ctx}`, fetch: secured, headers: bearer((await authorize(people[0]?.token)).access) });
    await brief(alice);
    await app.call("create_entities", { entities: [{ name: "From the app", entityType: "t", observations: [] }] });
    await bob.call("create_entities", { entities: [{ name: "From Bob", entityType: "t", observations: [] }] });
    const lines = section(await brief(app)) ?? [];
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`- entity:From Bob: +entity From Bob (by ${people[1]?.name}, `);
    // The app's read was Alice's look: her own brief has nothing new.
    expect(section(await brief(alice))).toEqual(["Nothing, by anyone else."]);
    await app.close();
    await close();
  });
});
