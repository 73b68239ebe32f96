import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/limits";
import { HUB_DEGREE, MAX_HUBS } from "../../src/search/walk";
import { CLIENTS, freshContext, json, type TestClient } from "../helpers/clients";

interface Hit {
  name: string;
  entityType: string;
  observations: string[];
  score: number;
  role: "entry" | "connector";
}
interface Found {
  entities: Hit[];
  relations: { from: string; to: string; relationType: string }[];
  paths: string[][];
  note?: string;
}

type Seed = { entities: { name: string; entityType: string; observations: string[] }[]; relations?: [string, string, string][] };

const SEED: Seed = {
  entities: [
    {
      name: "zoom-api-integration",
      entityType: "project",
      observations: ["Pulls meeting recordings and transcripts from the Zoom API", "Runs every night at 02:00"],
    },
    {
      name: "oauth-token-handling",
      entityType: "component",
      observations: ["Refreshes OAuth access tokens before they expire", "Stores refresh tokens encrypted at rest"],
    },
    { name: "n8n-workflow", entityType: "workflow", observations: ["Builds the weekly meeting timeline for the team", "Triggered by a cron node"] },
    { name: "credential-service", entityType: "service", observations: ["Issues short-lived credentials to integrations"] },
    { name: "coffee-machine", entityType: "device", observations: ["Third floor, descales on Fridays"] },
  ],
  relations: [
    ["zoom-api-integration", "credential-service", "authenticates via"],
    ["credential-service", "oauth-token-handling", "delegates to"],
    ["n8n-workflow", "zoom-api-integration", "reads from"],
  ],
};

describe.each(CLIENTS)("search_nodes with %s client", (_label, connect) => {
  async function seeded(seed: Seed): Promise<TestClient> {
    const client = await connect({ url: `http://localhost/mcp/${freshContext("search")}` });
    // In batches the tools accept (LIMITS.batchItems).
    for (let i = 0; i < seed.entities.length; i += LIMITS.batchItems) {
      const r = await client.call("create_entities", { entities: seed.entities.slice(i, i + LIMITS.batchItems) });
      expect(r.isError).toBeFalsy();
    }
    const relations = (seed.relations ?? []).map(([from, to, relationType]) => ({ from, to, relationType }));
    for (let i = 0; i < relations.length; i += LIMITS.batchItems) {
      const rel = await client.call("create_relations", { relations: relations.slice(i, i + LIMITS.batchItems) });
      expect(rel.isError).toBeFalsy();
    }
    return client;
  }
  const search = async (client: TestClient, args: Record<string, unknown>) => {
    const r = await client.call("search_nodes", args);
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    const found = json<Found>(r);
    expect(r.structuredContent).toEqual(found);
    return found;
  };
  const entries = (f: Found) => f.entities.filter((e) => e.role === "entry").map((e) => e.name);
  const names = (f: Found) => f.entities.map((e) => e.name);

  it('answers "zoom oauth timeline" with an entry per concept and the path connecting zoom to oauth', async () => {
    const client = await seeded(SEED);
    const found = await search(client, { query: "zoom oauth timeline" });
    expect(entries(found).sort()).toEqual(["n8n-workflow", "oauth-token-handling", "zoom-api-integration"]);
    expect(found.entities.find((e) => e.name === "credential-service")?.role).toBe("connector");
    expect(names(found)).not.toContain("coffee-machine");
    const zoomToOauth = found.paths.find((p) => p.includes("zoom-api-integration") && p.includes("oauth-token-handling"));
    expect(zoomToOauth).toBeDefined();
    expect(zoomToOauth?.slice(1, -1)).toEqual(["credential-service"]);
    expect(found.relations).toContainEqual({ from: "credential-service", to: "oauth-token-handling", relationType: "delegates to" });
    for (const e of found.entities.filter((x) => x.role === "entry")) expect(e.score).toBeGreaterThan(0);
    // Entry nodes come first, connectors after.
    const roles = found.entities.map((e) => e.role);
    expect(roles.indexOf("connector")).toBeGreaterThan(roles.lastIndexOf("entry"));
    await client.close();
  });

  it("keeps the official shape: full entities with observations, relations among the result", async () => {
    const client = await seeded(SEED);
    const found = await search(client, { query: "oauth" });
    expect(found.entities).toEqual([
      {
        name: "oauth-token-handling",
        entityType: "component",
        observations: ["Refreshes OAuth access tokens before they expire", "Stores refresh tokens encrypted at rest"],
        score: expect.any(Number),
        role: "entry",
      },
    ]);
    expect(found.relations).toEqual([]);
    expect(found.paths).toEqual([]);
    await client.close();
  });

  it("matches word forms through stemming", async () => {
    const client = await seeded({
      entities: [
        { name: "deploy-notes", entityType: "doc", observations: ["We are moving the services to containerization next quarter"] },
        { name: "auth-notes", entityType: "doc", observations: ["The client refreshes its session every hour"] },
      ],
    });
    expect(entries(await search(client, { query: "containerize" }))).toEqual(["deploy-notes"]);
    expect(entries(await search(client, { query: "refreshing" }))).toEqual(["auth-notes"]);
    await client.close();
  });

  it("matches hyphenated, snake_case and camelCase compounds by their parts and joined, both ways", async () => {
    const client = await seeded({
      entities: [
        { name: "local-dev", entityType: "doc", observations: ["Start everything with docker-compose up"] },
        { name: "ci-runner", entityType: "doc", observations: ["The runner talks to the docker compose plugin"] },
        { name: "snake", entityType: "doc", observations: ["the config key is max_retry_count"] },
        { name: "camel", entityType: "doc", observations: ["call fetchUserProfile first"] },
      ],
    });
    const finds = async (query: string, topPerToken = 5) => names(await search(client, { query, topPerToken, minRelativeScore: 0 }));
    expect(await finds("docker")).toEqual(expect.arrayContaining(["local-dev", "ci-runner"]));
    expect(await finds("docker compose")).toEqual(expect.arrayContaining(["local-dev", "ci-runner"]));
    expect(await finds("dockerCompose")).toEqual(expect.arrayContaining(["local-dev", "ci-runner"]));
    expect(await finds("docker_compose")).toEqual(expect.arrayContaining(["local-dev", "ci-runner"]));
    expect(await finds("dockercompose")).toContain("local-dev");
    expect(await finds("retry count")).toContain("snake");
    expect(await finds("maxRetryCount")).toContain("snake");
    expect(await finds("max-retry-count")).toContain("snake");
    expect(await finds("user profile")).toContain("camel");
    expect(await finds("fetchUserProfile")).toContain("camel");
    expect(await finds("fetch_user_profile")).toContain("camel");
    expect(await finds("profile")).toContain("camel");
    await client.close();
  });

  it("answers an empty or stop-word-only query with a clear empty result", async () => {
    const client = await seeded(SEED);
    for (const query of ["", "   ", "the and of", "?!", "- * ( )"]) {
      const found = await search(client, { query });
      expect(found.entities).toEqual([]);
      expect(found.relations).toEqual([]);
      expect(found.paths).toEqual([]);
      expect(found.note).toMatch(/no searchable terms/);
    }
    await client.close();
  });

  it("caps a very long query's terms instead of failing", async () => {
    const client = await seeded(SEED);
    const words = Array.from({ length: 300 }, (_, i) => `word${i}`).join(" ");
    const found = await search(client, { query: `oauth ${words}`.slice(0, 2000) });
    expect(entries(found)).toEqual(["oauth-token-handling"]);
    const oneHugeWord = await search(client, { query: "x".repeat(2000) });
    expect(oneHugeWord.entities).toEqual([]);
    await client.close();
  });

  it(`answers a query over ${LIMITS.queryChars} characters by its first ${LIMITS.queryChars}`, async () => {
    const client = await seeded(SEED);
    const head = "oauth ";
    // "coffee" lies past the cut, so only the head of the pasted text is searched.
    const pasted = head + " ".repeat(LIMITS.queryChars - head.length) + "coffee ".repeat(1000);
    expect(pasted.length).toBeGreaterThan(3 * LIMITS.queryChars);
    expect(entries(await search(client, { query: pasted }))).toEqual(["oauth-token-handling"]);
    await client.close();
  });

  it("never treats FTS5 syntax in a query as operators or fails on it", async () => {
    const client = await seeded(SEED);
    const queries = [
      '"oauth',
      'oauth"',
      '"oauth" OR "zoom"',
      "oauth*",
      "*",
      "oauth NEAR zoom",
      "NEAR(oauth zoom, 2)",
      "-oauth",
      "oauth -zoom",
      "(oauth",
      "oauth)",
      "oauth AND NOT zoom",
      "^oauth",
      "name:oauth",
      "{name}: oauth",
      "oauth + zoom",
      "'oauth'",
      "\\oauth\\",
      "oauth;DROP TABLE entities",
      "NOT",
      "OR AND NOT NEAR",
    ];
    for (const query of queries) {
      const r = await client.call("search_nodes", { query });
      expect(r.isError, `${query}: ${JSON.stringify(r.content)}`).toBeFalsy();
      const found = json<Found>(r);
      const terms = query.toLowerCase();
      if (terms.includes("oauth")) expect(names(found), query).toContain("oauth-token-handling");
      // "-zoom" and "NOT zoom" are words, not exclusions.
      if (terms.includes("zoom")) expect(names(found), query).toContain("zoom-api-integration");
    }
    // NEAR as a word is searchable like any other.
    const near = await seeded({ entities: [{ name: "office", entityType: "place", observations: ["The office is near the station"] }] });
    expect(entries(await search(near, { query: "NEAR" }))).toEqual(["office"]);
    const graph = await client.call("read_graph", {});
    expect(json<Found>(graph).entities).toHaveLength(SEED.entities.length);
    await client.close();
    await near.close();
  });

  it("finds Japanese text by words inside a sentence and accented words without their accents", async () => {
    const client = await seeded({
      entities: [
        { name: "東京オフィス", entityType: "場所", observations: ["会議室の予約は総務部が管理する"] },
        { name: "café-crème", entityType: "recette", observations: ["Le crème brûlée est servi à Noël"] },
        { name: "zürich-team", entityType: "team", observations: ["Das Team in Zürich betreut die Größenplanung"] },
      ],
    });
    expect(entries(await search(client, { query: "予約" }))).toEqual(["東京オフィス"]);
    expect(entries(await search(client, { query: "会議室" }))).toEqual(["東京オフィス"]);
    expect(entries(await search(client, { query: "オフィス" }))).toEqual(["東京オフィス"]);
    expect(entries(await search(client, { query: "総務部が管理" }))).toEqual(["東京オフィス"]);
    expect(entries(await search(client, { query: "cafe creme" }))).toEqual(["café-crème"]);
    expect(entries(await search(client, { query: "brulee" }))).toEqual(["café-crème"]);
    expect(entries(await search(client, { query: "Noël" }))).toEqual(["café-crème"]);
    expect(entries(await search(client, { query: "zurich" }))).toEqual(["zürich-team"]);
    expect(entries(await search(client, { query: "ZÜRICH" }))).toEqual(["zürich-team"]);
    await client.close();
  });

  it("keeps only candidates within minRelativeScore of a term's best", async () => {
    const client = await seeded({
      entities: [
        { name: "alpha-core", entityType: "service", observations: ["alpha handles billing", "alpha retries twice", "alpha is owned by the payments team"] },
        { name: "ledger", entityType: "service", observations: ["keeps the books"] },
        { name: "invoicer", entityType: "service", observations: ["sends invoices"] },
        { name: "dashboard", entityType: "app", observations: ["shows alpha once in a corner"] },
      ],
      relations: [
        ["alpha-core", "ledger", "writes to"],
        ["alpha-core", "invoicer", "calls"],
      ],
    });
    const loose = await search(client, { query: "alpha", topPerToken: 5, minRelativeScore: 0.05 });
    expect(entries(loose)).toEqual(["alpha-core", "dashboard"]);
    const [first, second] = loose.entities as [Hit, Hit];
    const share = second.score / first.score;
    expect(share).toBeLessThan(0.8);
    const strict = await search(client, { query: "alpha", topPerToken: 5, minRelativeScore: Math.min(1, share + 0.05) });
    expect(entries(strict)).toEqual(["alpha-core"]);
    await client.close();
  });

  it("gives every term its own entry node even when one entity mentions them all", async () => {
    const client = await seeded({
      entities: [
        { name: "meeting-hub", entityType: "project", observations: ["zoom oauth timeline planning", "zoom oauth timeline backlog"] },
        { name: "zoom-client", entityType: "app", observations: ["zoom desktop client", "zoom rooms"] },
        { name: "oauth-server", entityType: "service", observations: ["oauth authorization server", "oauth scopes"] },
        { name: "timeline-view", entityType: "ui", observations: ["timeline rendering", "timeline filters"] },
        { name: "a", entityType: "x", observations: ["one"] },
        { name: "b", entityType: "x", observations: ["two"] },
        { name: "c", entityType: "x", observations: ["three"] },
      ],
      relations: [
        ["meeting-hub", "a", "r"],
        ["meeting-hub", "b", "r"],
        ["meeting-hub", "c", "r"],
      ],
    });
    // The hub matches the whole query best and enters once; each term's own entity enters too.
    const found = entries(await search(client, { query: "zoom oauth timeline" }));
    expect(found[0]).toBe("meeting-hub");
    expect(found.filter((n) => ["zoom-client", "oauth-server", "timeline-view"].includes(n)).length).toBeGreaterThanOrEqual(2);
    await client.close();
  });

  const CHAIN: Seed = {
    entities: [
      { name: "start", entityType: "node", observations: ["alpha"] },
      { name: "hop1", entityType: "node", observations: ["one"] },
      { name: "hop2", entityType: "node", observations: ["two"] },
      { name: "hop3", entityType: "node", observations: ["three"] },
      { name: "finish", entityType: "node", observations: ["omega"] },
    ],
    relations: [
      ["start", "hop1", "next"],
      ["hop2", "hop1", "prev"],
      ["hop2", "hop3", "next"],
      ["finish", "hop3", "prev"],
    ],
  };

  it("connects entry nodes over relations in both directions up to maxPathLength hops", async () => {
    const client = await seeded(CHAIN);
    const four = await search(client, { query: "alpha omega", maxPathLength: 4 });
    expect(four.paths.map((p) => (p[0] === "start" ? p : [...p].reverse()))).toEqual([["start", "hop1", "hop2", "hop3", "finish"]]);
    expect(names(four).slice(0, 2).sort()).toEqual(["finish", "start"]);
    expect(names(four).slice(2).sort()).toEqual(["hop1", "hop2", "hop3"]);
    expect(four.relations).toHaveLength(4);
    const three = await search(client, { query: "alpha omega", maxPathLength: 3 });
    expect(three.paths).toEqual([]);
    expect(names(three).sort()).toEqual(["finish", "start"]);
    expect(three.relations).toEqual([]);
    const none = await search(client, { query: "alpha omega", maxPathLength: 0 });
    expect(names(none).sort()).toEqual(["finish", "start"]);
    await client.close();
  });

  /**
   * start - a1 - a2 - b2 - b1 - finish: the middle relation joins the two
   * regions' farthest nodes, so the walk's last level must find it. `hubs`
   * gives a2 and/or b2 more relations than HUB_DEGREE (src/search/walk.ts),
   * which that level finds from the other end or by a seek between hubs.
   */
  const bridged = (hubs: ("a2" | "b2")[]): Seed => {
    const spokes = hubs.flatMap((hub) => Array.from({ length: HUB_DEGREE + 6 }, (_, i) => ({ hub, name: `${hub}-spoke-${i}` })));
    return {
      entities: [
        { name: "start", entityType: "node", observations: ["alpha"] },
        { name: "finish", entityType: "node", observations: ["omega"] },
        ...["a1", "a2", "b2", "b1"].map((name) => ({ name, entityType: "node", observations: ["plain"] })),
        ...spokes.map(({ name }) => ({ name, entityType: "spoke", observations: ["plain"] })),
      ],
      relations: [
        ["start", "a1", "next"],
        ["a2", "a1", "prev"],
        ["a2", "b2", "next"],
        ["b1", "b2", "prev"],
        ["b1", "finish", "next"],
        ...spokes.map(({ hub, name }): [string, string, string] => [name, hub, "spoke of"]),
      ],
    };
  };

  it.each([[[]], [["a2"]], [["b2"]], [["a2", "b2"]]] as ("a2" | "b2")[][][])("finds a 5-hop path whose middle relation touches hubs %j", async (hubs) => {
    const client = await seeded(bridged(hubs));
    const found = await search(client, { query: "alpha omega" });
    expect(found.paths.map((p) => (p[0] === "start" ? p : [...p].reverse()))).toEqual([["start", "a1", "a2", "b2", "b1", "finish"]]);
    await client.close();
  });

  /**
   * start - a1 - (the a-side frontier) and finish - b1 - (the b-side
   * frontier), every frontier node two hops from its entry, with one relation
   * `bridge` between the two frontiers: the only 5-hop path. Frontier nodes
   * named in `hubs` get more than HUB_DEGREE relations. The walk's last
   * level leaves the region with the most ordinary frontier nodes unscanned
   * when at most one hub lies outside it (src/search/walk.ts bridgesWithin).
   */
  const frontiers = (a: string[], b: string[], hubs: string[], bridge: [string, string]): Seed => {
    const spokes = hubs.flatMap((hub) => Array.from({ length: HUB_DEGREE + 6 }, (_, i) => ({ hub, name: `${hub}-spoke-${i}` })));
    return {
      entities: [
        { name: "start", entityType: "node", observations: ["alpha"] },
        { name: "finish", entityType: "node", observations: ["omega"] },
        ...["a1", "b1", ...a, ...b].map((name) => ({ name, entityType: "node", observations: ["plain"] })),
        ...spokes.map(({ name }) => ({ name, entityType: "spoke", observations: ["plain"] })),
      ],
      relations: [
        ["start", "a1", "next"],
        ["finish", "b1", "next"],
        ...a.map((name): [string, string, string] => ["a1", name, "next"]),
        ...b.map((name): [string, string, string] => [name, "b1", "prev"]),
        [bridge[0], bridge[1], "bridge"],
        ...spokes.map(({ hub, name }): [string, string, string] => [name, hub, "spoke of"]),
      ],
    };
  };

  it.each([
    // The a side has more ordinary nodes and a hub, the bridge's end: only the b side is scanned.
    ["the unscanned region's hub", ["a2", "a3", "a4"], ["b2"], ["a2"], ["a2", "b2"]],
    // One hub outside the larger b side: the bridge from it into the b side is found by a seek per pair.
    ["a seek from the one hub outside the largest region", ["a2", "a3"], ["b2", "b3", "b4"], ["a2"], ["b3", "a2"]],
    // Only hubs outside the one region with ordinary nodes: seeks alone.
    ["seeks alone", ["a2"], ["b2", "b3"], ["a2"], ["a2", "b2"]],
    // Two hubs outside the larger a side: every ordinary node is scanned.
    ["a scan of every ordinary node", ["a2", "a3"], ["b2", "b3"], ["b2", "b3"], ["a3", "b2"]],
  ] as [string, string[], string[], string[], [string, string]][])("finds the 5-hop path through %s", async (_case, a, b, hubs, bridge) => {
    const client = await seeded(frontiers(a, b, hubs, bridge));
    const found = await search(client, { query: "alpha omega" });
    const [fromA, fromB] = a.includes(bridge[0]) ? bridge : [bridge[1], bridge[0]];
    expect(found.paths.map((p) => (p[0] === "start" ? p : [...p].reverse()))).toEqual([["start", "a1", fromA, fromB, "b1", "finish"]]);
    await client.close();
  });

  it("finds a bridge between two hubs when the frontier holds more hubs than it seeks pairwise (all scanned)", async () => {
    const a = Array.from({ length: MAX_HUBS }, (_, i) => `a${i + 2}`);
    const client = await seeded(frontiers(a, ["b2"], [...a, "b2"], ["a2", "b2"]));
    const found = await search(client, { query: "alpha omega" });
    expect(found.paths.map((p) => (p[0] === "start" ? p : [...p].reverse()))).toEqual([["start", "a1", "a2", "b2", "b1", "finish"]]);
    await client.close();
  });

  it("caps the result at maxTotalNodes (or limit), entry nodes first, dropping paths that do not fit", async () => {
    const client = await seeded(CHAIN);
    const capped = await search(client, { query: "alpha omega", maxTotalNodes: 4 });
    expect(names(capped).sort()).toEqual(["finish", "start"]);
    expect(capped.paths).toEqual([]);
    const fits = await search(client, { query: "alpha omega", maxTotalNodes: 5 });
    expect(fits.entities).toHaveLength(5);
    const one = await search(client, { query: "alpha omega", limit: 1 });
    expect(one.entities).toHaveLength(1);
    expect(one.entities[0]?.role).toBe("entry");
    await client.close();
  });

  it("rejects out-of-range search arguments with a message naming the argument", async () => {
    const client = await seeded(SEED);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ minRelativeScore: 1.5 }, /minRelativeScore/],
      [{ topPerToken: 0 }, /topPerToken/],
      [{ maxPathLength: 11 }, /maxPathLength/],
      [{ maxTotalNodes: 0 }, /maxTotalNodes/],
      [{ limit: 2.5 }, /limit/],
      [{ topPerToken: "3" }, /topPerToken/],
    ];
    for (const [args, message] of cases) {
      const r = await client.call("search_nodes", { query: "oauth", ...args });
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.content.map((c) => c.text).join(" ")).toMatch(message);
    }
    await client.close();
  });

  it("lists score, role and paths in the tool's output schema", async () => {
    const client = await connect({ url: `http://localhost/mcp/${freshContext("search")}` });
    const tool = (await client.listTools()).find((t) => t.name === "search_nodes");
    const schema = JSON.stringify(tool?.outputSchema);
    for (const field of ["score", "role", "paths", "entities", "relations"]) expect(schema).toContain(`"${field}"`);
    const input = JSON.stringify(tool?.inputSchema);
    for (const field of ["limit", "minRelativeScore", "topPerToken", "maxPathLength", "maxTotalNodes"]) expect(input).toContain(`"${field}"`);
    await client.close();
  });
});
