/**
 * recall sorts entities, files and documents by one score (docs/search.md,
 * "Files and documents: the same BM25F"), through MCP: in a small context
 * the file or document that answers the question comes first, a word held
 * by half of the few documents still counts, and one text scores alike
 * whichever kind holds it. The query's synonyms reach files and documents
 * (recall and search_documents) as they reach entities, at the same weight.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import type { RecallItem } from "../../src/search/pack";
import { settings } from "../../src/settings";
import { connectV2, freshContext, json, type TestClient } from "../helpers/clients";
import { stubOf } from "../helpers/context";

interface Recalled {
  items: (RecallItem & { via?: string })[];
}

const ok = (r: { isError?: boolean; content: { text?: string }[] }) => expect(r.isError, r.content[0]?.text).toBeFalsy();
const matched = async (c: TestClient, query: string, kinds?: string[]) => {
  const r = await c.call("recall", { query, budgetTokens: 20_000, ...(kinds ? { kinds } : {}) });
  ok(r);
  return (r.structuredContent as unknown as Recalled).items.filter((i) => !i.via);
};

/** The new user's context: 7 entities, 2 files, 4 documents (root and three it links). */
async function opsContext(): Promise<TestClient> {
  const c = await connectV2({ url: `http://localhost/mcp/${freshContext("kinds")}` });
  ok(
    await c.call("create_entities", {
      entities: [
        { name: "billing-service", entityType: "service", observations: ["serves invoices over gRPC", "owned by the payments team"] },
        { name: "checkout-service", entityType: "service", observations: ["calls billing-service for every order"] },
        { name: "Tomas Novak", entityType: "person", observations: ["engineer on the payments team"] },
        { name: "payments team", entityType: "team", observations: ["owns billing and checkout"] },
        { name: "pg-primary", entityType: "server", observations: ["PostgreSQL 16 in eu-west"] },
        { name: "Sentry", entityType: "tool", observations: ["collects errors from every service"] },
        { name: "PagerDuty", entityType: "tool", observations: ["rotations for every team"] },
      ],
    }),
  );
  ok(
    await c.call("create_relations", {
      relations: [
        { from: "checkout-service", to: "billing-service", relationType: "calls" },
        { from: "payments team", to: "billing-service", relationType: "owns" },
        { from: "Tomas Novak", to: "payments team", relationType: "member of" },
        { from: "billing-service", to: "pg-primary", relationType: "writes to" },
      ],
    }),
  );
  ok(
    await c.call("create", {
      path: "ops/runbooks/checkout-outage.md",
      file_text:
        "# Checkout outage\n\nIf checkout answers 500s, look at the load balancer first.\nIf billing-service gRPC errors spike, page the billing on-call (Tomas Novak).\nRoll back the last deploy when nothing else helps.\n",
    }),
  );
  ok(await c.call("create", { path: "ops/runbooks/deploy.md", file_text: "# Deploy\n\nDeploys run from CI; billing deploys need a second reviewer.\n" }));
  ok(await c.call("update_document", { id: "root", content: "# Ops notes\n[[ledger]] [[retro]] [[hiring]]" }));
  ok(
    await c.call("update_document", {
      id: "ledger",
      content: "# Ledger\n\nThe ledger database keeps every posting twice; month-end reconciliation reads it.",
    }),
  );
  ok(await c.call("update_document", { id: "retro", content: "# Retro\n\nThe ledger migration slipped a week." }));
  ok(await c.call("update_document", { id: "hiring", content: "# Hiring\n\nTwo backend roles open." }));
  return c;
}

describe("recall sorts entities, files and documents by one score", () => {
  it("puts the runbook that answers the question first in a small context, above the entities", async () => {
    const c = await opsContext();
    const items = await matched(c, "who do I page when billing gRPC errors spike?");
    expect(items[0]?.key).toBe("file:ops/runbooks/checkout-outage.md");
    // On the entities' scale (they score about 1 to 10 here), not FTS5's floor of 1e-6 for a word in half the files.
    expect(items[0]?.score).toBeGreaterThan(Math.max(...items.filter((i) => i.kind === "entity").map((i) => i.score)));
    await c.close();
  });

  it("puts the document about the ledger database first, though 'ledger' is in half of the documents", async () => {
    const c = await opsContext();
    const items = await matched(c, "ledger database");
    expect(items[0]?.key).toBe("doc:ledger");
    const retro = items.find((i) => i.key === "doc:retro");
    // One word of the two, in 2 of the 4 documents: it still counts, as it would for entities.
    expect(retro?.score).toBeGreaterThan(0.1);
    await c.close();
  });

  it("scores one text alike as an observation, a file and a document", async () => {
    const c = await connectV2({ url: `http://localhost/mcp/${freshContext("kinds")}` });
    const text = "Kafka consumer lag grows when the brokers rebalance";
    ok(await c.call("create_entities", { entities: [{ name: "k1", entityType: "note", observations: [text] }] }));
    ok(await c.call("create", { path: "k1.md", file_text: text }));
    ok(await c.call("update_document", { id: "root", content: "# Root\n[[k1]]" }));
    ok(await c.call("update_document", { id: "k1", content: text }));
    const items = await matched(c, "kafka consumer lag");
    const score = (key: string) => items.find((i) => i.key === key)?.score ?? 0;
    const entity = score("entity:k1");
    expect(entity).toBeGreaterThan(1);
    // The same words, idf, k1 and b: within the items' own lengths against their kind's average and the document's title.
    for (const key of ["file:k1.md", "doc:k1"]) {
      expect(score(key) / entity, key).toBeGreaterThan(0.8);
      expect(score(key) / entity, key).toBeLessThan(1.5);
    }
    await c.close();
  });
});

/** A context holding one paraphrase three times (an observation, a file, a document) and the literal word once, in a file and a document. */
async function carContext(): Promise<{ c: TestClient; name: string }> {
  const name = freshContext("synonyms");
  const c = await connectV2({ url: `http://localhost/mcp/${name}` });
  const car = "Took the car to the mechanic on Friday";
  ok(await c.call("create_entities", { entities: [{ name: "garage visit", entityType: "event", observations: [car] }] }));
  ok(await c.call("create", { path: "garage.md", file_text: car }));
  ok(await c.call("create", { path: "club.md", file_text: "Joined an automobile association" }));
  ok(await c.call("create", { path: "lunch.md", file_text: "Sandwiches in the park" }));
  ok(await c.call("update_document", { id: "root", content: "# Root\n[[garage]] [[club]] [[lunch]]" }));
  ok(await c.call("update_document", { id: "garage", content: `# Friday\n\n${car}` }));
  ok(await c.call("update_document", { id: "club", content: "# Club\n\nJoined an automobile association" }));
  ok(await c.call("update_document", { id: "lunch", content: "# Lunch\n\nSandwiches in the park" }));
  return { c, name };
}

const documentIds = async (c: TestClient, query: string) =>
  json<{ results: { id: string }[] }>(await c.call("search_documents", { query })).results.map((r) => r.id);

describe("synonyms reach files and documents as they reach entities", () => {
  it("search_documents finds a document by a synonym of the query's word, after the one holding the word", async () => {
    const { c, name } = await carContext();
    expect(await documentIds(c, "automobile")).toEqual(["club", "garage"]);
    await runInDurableObject(stubOf(name), (instance: MemoryContext) => {
      instance.config = () => ({ ...settings(env), SEARCH_EXPANSION: false });
    });
    expect(await documentIds(c, "automobile")).toEqual(["club"]);
    await c.close();
  });

  it("recall's files and documents match a synonym at the entities' weight", async () => {
    const { c } = await carContext();
    const items = await matched(c, "automobile");
    const score = (key: string) => items.find((i) => i.key === key)?.score ?? 0;
    expect(
      items
        .map((i) => i.key)
        .slice(0, 2)
        .sort(),
    ).toEqual(["doc:club", "file:club.md"]);
    const entity = score("entity:garage visit");
    expect(entity).toBeGreaterThan(0);
    // The paraphrase counts alike in the three kinds: the same word's idf, the synonym's weight, saturated with the word.
    for (const key of ["file:garage.md", "doc:garage"]) {
      expect(score(key) / entity, key).toBeGreaterThan(0.8);
      expect(score(key) / entity, key).toBeLessThan(1.25);
    }
    expect((await matched(c, "automobile", ["doc", "file"])).map((i) => i.key).sort()).toEqual(["doc:club", "doc:garage", "file:club.md", "file:garage.md"]);
    await c.close();
  });
});
