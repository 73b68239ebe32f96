import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/priority/brief";
import { MIN_TEXT_CHARS, Packer, type RecallItem } from "../../src/search/pack";
import { CLIENTS, connectV2, freshContext, json, type TestClient } from "../helpers/clients";

interface Recalled {
  items: (RecallItem & { via?: string })[];
  omitted: number;
  budgetTokens: number;
  usedTokens: number;
  mode: string;
  note?: string;
}

const item = (i: number, textChars: number, score = 100 - i): RecallItem => ({
  key: `entity:e${i}`,
  kind: "entity",
  name: `e${i}`,
  score,
  text: "x".repeat(textChars),
});

describe("recall packing", () => {
  it("never goes over the budget, whatever the items, and keeps their order", () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let run = 0; run < 200; run++) {
      const budget = 50 + Math.floor(rand() * 2000);
      const packer = new Packer(budget);
      const items = Array.from({ length: 1 + Math.floor(rand() * 40) }, (_, i) => ({
        ...item(i, Math.floor(rand() * 3000)),
        text: '"quoted"\n\\'.repeat(Math.floor(rand() * 5)) + "é".repeat(Math.floor(rand() * 200)),
      }));
      for (const it of items) packer.add(it);
      expect(estimateTokens(JSON.stringify(packer.items))).toBe(packer.usedTokens);
      expect(packer.usedTokens).toBeLessThanOrEqual(budget);
      const order = packer.items.map((i) => Number(i.name.slice(1)));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });

  it("leaves out an item that does not fit and still packs a smaller one after it", () => {
    const packer = new Packer(100);
    expect(packer.add(item(0, 200))).toBe(true);
    expect(packer.add(item(1, 100))).toBe(false);
    expect(packer.add(item(2, 10))).toBe(true);
    expect(packer.items.map((i) => i.name)).toEqual(["e0", "e2"]);
    expect(packer.usedTokens).toBeLessThanOrEqual(100);
  });

  it("cuts a long best item to fit rather than drop it, but not below MIN_TEXT_CHARS", () => {
    const packer = new Packer(100);
    expect(packer.add(item(0, 5000))).toBe(true);
    const [first] = packer.items;
    expect(first?.text.endsWith("…")).toBe(true);
    expect(first?.text.length).toBeGreaterThanOrEqual(MIN_TEXT_CHARS);
    expect(packer.usedTokens).toBeLessThanOrEqual(100);
    // Too little room left for a cut item worth reading.
    expect(packer.add(item(1, 5000))).toBe(false);
  });
});

async function seeded(connect: (o: { url: string }) => Promise<TestClient>): Promise<TestClient> {
  const c = await connect({ url: `http://localhost/mcp/${freshContext("recall")}` });
  const ok = (r: { isError?: boolean; content: { text?: string }[] }) => expect(r.isError, r.content[0]?.text).toBeFalsy();
  ok(
    await c.call("create_entities", {
      entities: [
        {
          name: "payments-api",
          entityType: "service",
          observations: ["retries failed card charges three times", "owned by the payments team", "calls the billing service on every charge"],
        },
        { name: "billing", entityType: "team", observations: ["owns invoices"] },
        { name: "platform", entityType: "team", observations: ["runs kubernetes"] },
        { name: "coffee-machine", entityType: "device", observations: ["third floor"] },
      ],
    }),
  );
  ok(
    await c.call("create_relations", {
      relations: [
        { from: "payments-api", to: "platform", relationType: "runs on" },
        { from: "platform", to: "billing", relationType: "hosts" },
      ],
    }),
  );
  ok(await c.call("create", { path: "runbooks/charges.md", file_text: "# Charges\n\nWhen card charges fail, the retries back off for an hour.\n" }));
  ok(await c.call("update_document", { id: "root", content: "# Root\n[[decisions]]" }));
  ok(await c.call("update_document", { id: "decisions", content: "# Decisions\n\nWe cap card charge retries at three." }));
  return c;
}

const recall = async (c: TestClient, args: Record<string, unknown>) => {
  const r = await c.call("recall", args);
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return r.structuredContent as unknown as Recalled;
};

describe.each(CLIENTS)("recall with %s client", (_label, connect) => {
  it("answers a question with entities, files and documents, best first, each with the text that matched", async () => {
    const c = await seeded(connect);
    const r = await recall(c, { query: "How many times are failed card charges retried?" });
    // Words and their synonyms (SEARCH_EXPANSION is on by default); no AI binding in tests.
    expect(r.mode).toBe("lexical+expansion");
    expect(r.budgetTokens).toBe(1500);
    expect(r.usedTokens).toBeLessThanOrEqual(1500);
    expect(r.usedTokens).toBe(estimateTokens(JSON.stringify(r.items)));
    const matches = r.items.filter((i) => !i.via);
    expect(new Set(matches.map((i) => i.kind))).toEqual(new Set(["entity", "file", "doc"]));
    expect(matches.map((i) => i.score)).toEqual([...matches.map((i) => i.score)].sort((a, b) => b - a));
    const payments = r.items.find((i) => i.key === "entity:payments-api");
    expect(payments?.text).toContain("retries failed card charges three times");
    // The best observation, not the whole entity.
    expect(payments?.text).not.toContain("owned by the payments team");
    expect(r.items.find((i) => i.key === "file:runbooks/charges.md")?.text).toContain("retries back off");
    expect(r.items.find((i) => i.key === "doc:decisions")?.text).toContain("retries at three");
    expect(r.items.some((i) => i.key === "entity:coffee-machine")).toBe(false);
    await c.close();
  });

  it("rejects an empty query, a budget out of range and unknown kinds with clear errors", async () => {
    const c = await connect({ url: `http://localhost/mcp/${freshContext("recall")}` });
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ query: "" }, /query must not be empty/],
      [{ query: "   " }, /query must not be empty/],
      [{ query: "x", budgetTokens: 10 }, /budgetTokens must be at least 50/],
      [{ query: "x", budgetTokens: 20_001 }, /budgetTokens must be at most 20000/],
      [{ query: "x", budgetTokens: 1.5 }, /budgetTokens must be a whole number/],
      [{ query: "x", kinds: ["entity", "note"] }, /kinds must be among entity, file, doc/],
      [{ query: "x", kinds: [] }, /kinds must name at least one kind/],
    ];
    for (const [args, message] of cases) {
      const r = await c.call("recall", args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.content[0]?.text).toMatch(message);
    }
    await c.close();
  });
});

describe("recall", () => {
  it("keeps to a small budget and counts what it left out", async () => {
    const c = await seeded(connectV2);
    const r = await recall(c, { query: "card charges retries billing", budgetTokens: 60 });
    expect(r.usedTokens).toBeLessThanOrEqual(60);
    expect(r.items.length).toBeGreaterThan(0);
    expect(r.omitted).toBeGreaterThan(0);
    await c.close();
  });

  it("returns only the kinds asked for", async () => {
    const c = await seeded(connectV2);
    const r = await recall(c, { query: "card charges retries", kinds: ["file"] });
    expect(r.items.map((i) => i.key)).toEqual(["file:runbooks/charges.md"]);
    await c.close();
  });

  it("adds the entity connecting two matches when budget remains, after the matches", async () => {
    const c = await seeded(connectV2);
    const r = await recall(c, { query: "payments billing", kinds: ["entity"] });
    const keys = r.items.map((i) => i.key);
    expect(keys.slice(0, 2).sort()).toEqual(["entity:billing", "entity:payments-api"]);
    expect(r.items.find((i) => i.key === "entity:platform")?.via).toBe("connector");
    expect(keys.indexOf("entity:platform")).toBeGreaterThan(1);
    await c.close();
  });

  it("shows under a matched entity its relations whose type holds a word of the question, naming the entity at the other end", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("relations")}` });
    await c.call("create_entities", {
      entities: [
        { name: "checkout-service", entityType: "service", observations: ["serves the checkout page"] },
        { name: "Maria Chen", entityType: "person", observations: ["staff engineer"] },
        { name: "Tomas Novak", entityType: "person", observations: ["on call this week"] },
        ...Array.from({ length: 5 }, (_, i) => ({ name: `owner${i}`, entityType: "team", observations: [] })),
      ],
    });
    await c.call("create_relations", {
      relations: [
        { from: "Maria Chen", to: "checkout-service", relationType: "owns" },
        { from: "Tomas Novak", to: "checkout-service", relationType: "is_on_call_for" },
        // More owners than a line list holds: three at most, oldest first.
        ...Array.from({ length: 5 }, (_, i) => ({ from: `owner${i}`, to: "checkout-service", relationType: "co-owns" })),
      ],
    });
    const r = await recall(c, { query: "who owns checkout", kinds: ["entity"] });
    const checkout = r.items.find((i) => i.key === "entity:checkout-service");
    expect(checkout?.text).toBe(
      "(service)\n- serves the checkout page\n- Maria Chen -owns-> checkout-service\n- owner0 -co-owns-> checkout-service\n- owner1 -co-owns-> checkout-service",
    );
    // A question about being on call shows that relation, split at "_"; one about the page shows none.
    expect(r.items.length).toBeGreaterThan(0);
    const onCall = await recall(c, { query: "checkout call", kinds: ["entity"] });
    expect(onCall.items.find((i) => i.key === "entity:checkout-service")?.text).toBe(
      "(service)\n- serves the checkout page\n- Tomas Novak -is_on_call_for-> checkout-service",
    );
    const page = await recall(c, { query: "checkout page", kinds: ["entity"] });
    expect(page.items.find((i) => i.key === "entity:checkout-service")?.text).toBe("(service)\n- serves the checkout page");
    await c.close();
  });

  it("follows files through moves and deletes (the files index stays in step)", async () => {
    const c = await seeded(connectV2);
    expect((await c.call("rename", { old_path: "runbooks/charges.md", new_path: "runbooks/payments.md" })).isError).toBeFalsy();
    let r = await recall(c, { query: "retries back off", kinds: ["file"] });
    expect(r.items.map((i) => i.key)).toEqual(["file:runbooks/payments.md"]);
    expect((await c.call("delete", { path: "runbooks/payments.md" })).isError).toBeFalsy();
    r = await recall(c, { query: "retries back off", kinds: ["file"] });
    expect(r.items).toEqual([]);
    expect(r.note).toMatch(/^Nothing in memory matches the query/);
    expect((await c.call("undo", {})).isError).toBeFalsy();
    r = await recall(c, { query: "retries back off", kinds: ["file"] });
    expect(r.items.map((i) => i.key)).toEqual(["file:runbooks/payments.md"]);
    await c.close();
  });

  it("ranks files and documents for natural questions, the one holding every word first, under many newer partial matches", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("recall")}` });
    const ok = (r: { isError?: boolean; content: { text?: string }[] }) => expect(r.isError, r.content[0]?.text).toBeFalsy();
    ok(await c.call("create", { path: "runbooks/oncall.md", file_text: "# Rota\n\nWeek 13: Dana is on call, week 14 Lee.\n" }));
    ok(await c.call("update_document", { id: "root", content: `# Root\n[[payments]] ${Array.from({ length: 20 }, (_, i) => `[[n${i}]]`).join(" ")}` }));
    ok(await c.call("update_document", { id: "payments", content: "# Payments\n\nStripe retries a webhook until we answer, so we see duplicates." }));
    for (let i = 0; i < 20; i++) {
      ok(await c.call("create", { path: `notes/s${i}.md`, file_text: "We had a call about the week ahead, a long call, the whole week.\n" }));
      ok(await c.call("update_document", { id: `n${i}`, content: `# Note ${i}\n\nThe Stripe webhook fired again; webhook logs are kept.` }));
    }
    const first = async (query: string, kind: string) => (await recall(c, { query, kinds: [kind] })).items.find((i) => !i.via)?.key;
    expect(await first("who is on call in week 13", "file")).toBe("file:runbooks/oncall.md");
    expect(await first("Stripe webhook duplicates", "doc")).toBe("doc:payments");
    await c.close();
  });

  it("answers a question nothing in memory is about with no items and a note, not with filler", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("recall")}` });
    const ok = (r: { isError?: boolean; content: { text?: string }[] }) => expect(r.isError, r.content[0]?.text).toBeFalsy();
    ok(
      await c.call("create_entities", {
        entities: [
          // "eat" only inside a longer name, and "consume" only as WordNet's broader word for "eat".
          { name: "feature-flags", entityType: "service", observations: ["toggles checkout experiments"] },
          { name: "orders-worker", entityType: "service", observations: ["consumes the orders topic from kafka"] },
        ],
      }),
    );
    ok(await c.call("create", { path: "runbooks/kafka.md", file_text: "# Kafka\n\nEvery worker consumes its topic in order.\n" }));
    for (const query of ["What do giraffes eat?", "giraffes eat"]) {
      const r = await recall(c, { query });
      expect(r.items, query).toEqual([]);
      expect(r.note).toMatch(/^Nothing in memory matches the query/);
      const nodes = json<{ entities: unknown[]; note?: string }>(await c.call("search_nodes", { query }));
      expect(nodes.entities).toEqual([]);
      expect(nodes.note).toMatch(/^Nothing in memory matches the query/);
    }
    // A word the memory holds still finds it, and a broader word then adds to the score without finding anything new.
    expect((await recall(c, { query: "what does the worker consume" })).items.map((i) => i.key)).toContain("entity:orders-worker");
    expect((await recall(c, { query: "feature flags" })).items[0]?.key).toBe("entity:feature-flags");
    await c.close();
  });

  it("puts each matched observation on its own line, within the budget", async () => {
    const c = await seeded(connectV2);
    const r = await recall(c, { query: "payments charges billing" });
    const payments = r.items.find((i) => i.key === "entity:payments-api");
    expect(payments?.text.split("\n")).toEqual([
      "(service)",
      "- calls the billing service on every charge",
      "- owned by the payments team",
      "- retries failed card charges three times",
    ]);
    expect(r.usedTokens).toBe(estimateTokens(JSON.stringify(r.items)));
    expect(r.usedTokens).toBeLessThanOrEqual(r.budgetTokens);
    await c.close();
  });

  it("says so when the query has only stop words", async () => {
    const c = await seeded(connectV2);
    const r = await recall(c, { query: "what is the" });
    expect(r.items).toEqual([]);
    expect(r.note).toMatch(/no searchable terms/);
    await c.close();
  });
});

describe("recall on the object", () => {
  it("refuses a budget out of range, no kinds or an unknown kind as Invalid, whoever calls it", async () => {
    await runInDurableObject(env.MEMORY.getByName(freshContext("recall")), async (instance) => {
      const meta = { caller: "test", callerId: "test", tool: "recall" };
      const bad: [number, string[], RegExp][] = [
        [49, ["entity"], /budgetTokens must be a whole number from 50 to 20000, got 49/],
        [20_001, ["entity"], /from 50 to 20000/],
        [100, [], /kinds must name at least one of entity, file, doc/],
        [100, ["entity", "note"], /unknown: note/],
      ];
      for (const [budgetTokens, kinds, message] of bad) {
        const r = await instance.recall("billing", { budgetTokens, kinds: kinds as never }, meta);
        expect(r.ok).toBe(false);
        if (!r.ok) {
          expect(r.kind).toBe("Invalid");
          expect(r.message).toMatch(message);
        }
      }
    });
  });
});
