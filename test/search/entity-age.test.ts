/**
 * search_nodes and recall find an old entity that is the clear best match
 * under hundreds of newer ones holding the same common words, through MCP:
 * every document holding a query word counts, whatever its age
 * (docs/search.md, "Find every match, however old").
 */
import { describe, expect, it } from "vitest";
import type { RecallItem } from "../../src/search/pack";
import { DAY_MS } from "../../src/search/score";
import { clockedContext } from "../helpers/aged";

const ok = (r: { isError?: boolean; content: { text?: string }[] }) => expect(r.isError, r.content[0]?.text).toBeFalsy();

describe("entities at any age, through MCP", () => {
  it("returns an old clear best match first from search_nodes and recall, under 300 newer entities holding the same words", async () => {
    const now = Date.UTC(2026, 5, 1);
    // Written first (the lowest ids, which the old newest-first windows never reached), ten days before the others.
    const { c, set } = await clockedContext("entity-old", now - 20 * DAY_MS);
    ok(
      await c.call("create_entities", {
        entities: [{ name: "Component 943", entityType: "service", observations: ["kafka outage at noon", "the kafka outage again", "kafka outage postmortem"] }],
      }),
    );
    set(now - 10 * DAY_MS);
    for (let batch = 0; batch < 3; batch++) {
      const entities = Array.from({ length: 100 }, (_, i) => ({
        name: `service ${batch}-${i}`,
        entityType: "service",
        observations: [`kafka consumer lag on shard ${i}`, `an outage of the billing cron ${i}`],
      }));
      ok(await c.call("create_entities", { entities }));
    }
    set(now);
    const found = await c.call("search_nodes", { query: "kafka outage", limit: 5 });
    ok(found);
    expect((found.structuredContent as { entities: { name: string }[] }).entities[0]?.name).toBe("Component 943");
    const recalled = await c.call("recall", { query: "kafka outage", kinds: ["entity"] });
    ok(recalled);
    const items = (recalled.structuredContent as unknown as { items: RecallItem[] }).items;
    expect(items[0]?.name).toBe("Component 943");
    // The matched observations are separate passages of the item's text.
    expect(items[0]?.text).toContain("kafka outage postmortem");
    await c.close();
  });
});
