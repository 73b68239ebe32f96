import { env } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { settings, SettingsError } from "../../src/settings";
import { searchParams } from "../../src/search";
import { derivedText, derivedUnicode } from "../../src/search/indexer";
import { connectionFactor, DAY_MS, idfFactor, priorityFactor, RECENCY_FLOOR, recencyFactor } from "../../src/search/score";
import { MAX_QUERY_TERMS, questionFrame, quote, tokenize } from "../../src/search/tokenize";
import { workerFetch } from "../helpers/clients";
import { withLogs } from "../helpers/logs";

const keys = (q: string) => tokenize(q).map((t) => t.key);

describe("query tokenizer", () => {
  it("lower-cases, splits on punctuation and ignores word order", () => {
    expect(keys("Zoom, OAuth; timeline!")).toEqual(["zoom", "oauth", "timeline"]);
    expect(keys("timeline oauth zoom").sort()).toEqual(keys("zoom oauth timeline").sort());
  });

  it("keeps a compound as one term with its parts, however it is written", () => {
    for (const q of ["docker-compose", "dockerCompose", "docker_compose", "DockerCompose", "docker.compose"]) {
      expect(tokenize(q)).toEqual([{ key: "dockercompose", parts: ["docker", "compose"], cjk: false }]);
    }
    expect(tokenize("HTTPServer")[0]?.parts).toEqual(["http", "server"]);
    expect(keys("docker-compose dockerCompose")).toEqual(["dockercompose"]);
  });

  it("drops standalone stop words but keeps them inside compounds", () => {
    expect(keys("what is the state of the art")).toEqual(["state", "art"]);
    expect(tokenize("state-of-the-art")[0]?.parts).toEqual(["state", "of", "the", "art"]);
    expect(tokenize("the of and")).toEqual([]);
  });

  it("drops the words that frame a plain-language question, only in a question", () => {
    expect(keys("How many times has Melanie gone to the beach?")).toEqual(["melanie", "gone", "beach"]);
    expect(keys("How long has Melanie been practicing art?")).toEqual(["melanie", "practicing", "art"]);
    expect(keys("What kind of art does Caroline make?")).toEqual(["art", "caroline", "make"]);
    expect(keys("What type of individuals does the agency support?")).toEqual(["individuals", "agency", "support"]);
    expect(keys("Would Caroline likely pursue writing?")).toEqual(["caroline", "pursue", "writing"]);
    // The same words carry meaning elsewhere: after another word, without "of", or in a keyword query.
    expect(keys("What long trips did Jon take?")).toEqual(["long", "trips", "jon", "take"]);
    expect(keys("What type does the node have?")).toEqual(["type", "node"]);
    expect(keys("entity type of a node")).toEqual(["entity", "type", "node"]);
    expect(keys("long polling likely cause")).toEqual(["long", "polling", "likely", "cause"]);
    expect(questionFrame(["how", "much"])).toEqual(new Set([1]));
    expect(questionFrame([])).toEqual(new Set());
  });

  it("strips FTS5 syntax characters and quotes what is left", () => {
    expect(keys("\"a\" OR b* NEAR(c d) -e (f) ^g h:i {j} 'k'")).toEqual(["b", "near", "c", "d", "e", "f", "g", "h", "j", "k"]);
    expect(quote('say "hi"')).toBe('"say ""hi"""');
  });

  it("caps the number and the length of terms", () => {
    const many = Array.from({ length: 100 }, (_, i) => `w${i}`).join(" ");
    expect(keys(many)).toHaveLength(MAX_QUERY_TERMS);
    expect(keys(many)[0]).toBe("w0");
    expect(keys(`${"x".repeat(65)} short`)).toEqual(["short"]);
  });

  it("takes CJK runs as terms of their own and keeps accents for the index to fold", () => {
    expect(tokenize("東京オフィスの会議室 café")).toEqual([
      { key: "東京オフィスの会議室", parts: ["東京オフィスの会議室"], cjk: true },
      { key: "café", parts: ["café"], cjk: false },
    ]);
    expect(keys("ＡＢＣ")).toEqual(["abc"]);
  });
});

describe("index text", () => {
  it("adds the parts and joined form of compounds and the bigrams of CJK runs", () => {
    expect(derivedText("run docker-compose and fetchUser")).toBe("docker compose dockercompose fetch user fetchuser");
    expect(derivedText("会議室 ok")).toBe("会議 議室");
    expect(derivedText("plain words only")).toBeNull();
  });

  it("derives the same from ASCII text on its fast path as the Unicode rules do", () => {
    for (const text of ["HTTPServer a--b x-y- 'quoted' k8s.io/v1_beta ABc aB", "XMLHttpRequest2Go e-mail_id", "-a.b-", "no"]) {
      expect(derivedText(text)).toBe(derivedUnicode(text));
    }
    // Characters that decide a split (case, digits, joiners, separators), now and then one past ASCII.
    const char = fc.constantFrom(..."aAbBzZ09-_./' \t,;:!()", "é", "会", "\u2019", "ｱ");
    fc.assert(
      fc.property(fc.array(char, { maxLength: 40 }), (chars) => {
        const text = chars.join("");
        expect(derivedText(text)).toBe(derivedUnicode(text));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("score factors", () => {
  it("are the documented formulas", () => {
    expect(idfFactor(10, 1000)).toBeCloseTo(Math.log(1 + 990.5 / 10.5));
    expect(idfFactor(1000, 1000)).toBeGreaterThan(0);
    expect(connectionFactor(0)).toBe(1);
    expect(connectionFactor(2)).toBeCloseTo(Math.sqrt(1 + Math.log(3)));
    expect(recencyFactor(0)).toBe(1);
    expect(recencyFactor(30 * DAY_MS)).toBeCloseTo(RECENCY_FLOOR + (1 - RECENCY_FLOOR) * Math.exp(-1));
    expect(recencyFactor(10_000 * DAY_MS)).toBeCloseTo(RECENCY_FLOOR);
    expect(priorityFactor(1)).toBe(1);
  });
});

describe("search settings", () => {
  const base = { ...env } as unknown as Record<string, unknown>;
  const withVars = (vars: Record<string, string>) => ({ ...base, ...vars }) as unknown as Env;

  it("default to the documented values", () => {
    const s = settings(withVars({ SEARCH_MIN_RELATIVE_SCORE: "", SEARCH_TOP_PER_TOKEN: "", SEARCH_MAX_PATH_LENGTH: "", SEARCH_MAX_TOTAL_NODES: "" }));
    expect(s).toMatchObject({ SEARCH_MIN_RELATIVE_SCORE: 0.3, SEARCH_TOP_PER_TOKEN: 1, SEARCH_MAX_PATH_LENGTH: 5, SEARCH_MAX_TOTAL_NODES: 50 });
    expect(settings(env)).toMatchObject({ SEARCH_MIN_RELATIVE_SCORE: 0.3, SEARCH_TOP_PER_TOKEN: 1, SEARCH_MAX_PATH_LENGTH: 5, SEARCH_MAX_TOTAL_NODES: 50 });
  });

  it("reject a bad value with an error naming the variable and the range", () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ SEARCH_MIN_RELATIVE_SCORE: "abc" }, /SEARCH_MIN_RELATIVE_SCORE: "abc"/],
      [{ SEARCH_MIN_RELATIVE_SCORE: "1.5" }, /SEARCH_MIN_RELATIVE_SCORE: "1.5": must be a number from 0 to 1/],
      [{ SEARCH_TOP_PER_TOKEN: "2.5" }, /SEARCH_TOP_PER_TOKEN: "2.5": must be a whole number/],
      [{ SEARCH_MAX_PATH_LENGTH: "-1" }, /SEARCH_MAX_PATH_LENGTH: "-1": must be a number from 0 to 10/],
      [{ SEARCH_MAX_TOTAL_NODES: "1000" }, /SEARCH_MAX_TOTAL_NODES: "1000": must be a number from 1 to 200/],
    ];
    for (const [vars, message] of cases) {
      expect(() => settings(withVars(vars))).toThrow(SettingsError);
      expect(() => settings(withVars(vars))).toThrow(message);
    }
  });

  it("stop the server with a clear error instead of ranking with NaN", async () => {
    const f = workerFetch({ SEARCH_MIN_RELATIVE_SCORE: "lots" } as unknown as Partial<Env>);
    const { value: res, logged } = await withLogs(() => f("http://localhost/mcp", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }));
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: "misconfigured", message: expect.stringMatching(/SEARCH_MIN_RELATIVE_SCORE: "lots"/) });
    expect(logged).toEqual([{ level: "error", line: { event: "bad_settings", message: expect.stringContaining('SEARCH_MIN_RELATIVE_SCORE: "lots"') } }]);
  });

  it("are overridden per call; limit caps the result like maxTotalNodes", () => {
    const s = settings(env);
    expect(searchParams({}, s)).toEqual({ minRelativeScore: 0.3, topPerToken: 1, maxPathLength: 5, maxTotalNodes: 50 });
    expect(searchParams({ minRelativeScore: 0, topPerToken: 3, maxPathLength: 2, maxTotalNodes: 9 }, s)).toEqual({
      minRelativeScore: 0,
      topPerToken: 3,
      maxPathLength: 2,
      maxTotalNodes: 9,
    });
    expect(searchParams({ limit: 120 }, s).maxTotalNodes).toBe(120);
    expect(searchParams({ limit: 20, maxTotalNodes: 10 }, s).maxTotalNodes).toBe(10);
  });
});
