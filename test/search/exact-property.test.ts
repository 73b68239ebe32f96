/**
 * Property: search_nodes' and recall's best entities are exactly those of an
 * exhaustive scoring of every entity (docs/search.md, "Score the whole
 * query"), ties by id, whatever an entity's age, on random contexts written
 * at different times, with deletes, observation updates, merges, undo,
 * imports, marks, relations (degree) and reads (uses, last access) between
 * queries, so entities' factors differ as they do in a team's context.
 *
 * The reference here reads the rows themselves (entities, observations,
 * relations), not the search indexes, and tokenizes them in JavaScript: the
 * vocabulary is plain lowercase words that the porter stemmer leaves as they
 * are, so a word is a term. So a write path that left the indexes or the
 * statistics behind fails the property as a pruning bug would.
 */
import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MemoryContext } from "../../src/context/MemoryContext";
import { priorityInputOf } from "../../src/priority/columns";
import { priority } from "../../src/priority/model";
import { modelOptions } from "../../src/priority/weights";
import { searchGraph, searchParams } from "../../src/search";
import { chooseEntries } from "../../src/search/entries";
import { HYPERNYM_WEIGHT, SYNONYM_WEIGHT, type WeightedTerm } from "../../src/search/expand";
import { parseQuery } from "../../src/search/query";
import { BM25_B, BM25_K1, LABEL_WEIGHT, PHRASE_BONUS, PHRASE_DISTANCE } from "../../src/search/rank";
import { recall } from "../../src/search/recall";
import { connectionFactor, DAY_MS, idfFactor, priorityFactor, recencyFactor } from "../../src/search/score";
import { settings } from "../../src/settings";
import { Db } from "../../src/storage/sql";
import { freshContext } from "../helpers/clients";
import { as, registered, stubOf, unwrap } from "../helpers/context";

/** Common words (in many observations) and rare ones; none is changed by the porter stemmer or is a stop word. */
const COMMON = ["kafka", "nginx", "grafana"];
const RARE = ["quokka", "tango", "zulu", "okta", "banjo"];
const FILLER = ["plain", "note", "about", "sprint", "cloud"];
const K = 5;
const me = as("local");

const wordArb = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...COMMON) },
  { weight: 1, arbitrary: fc.constantFrom(...RARE) },
  { weight: 3, arbitrary: fc.constantFrom(...FILLER) },
);
const textArb = fc.array(wordArb, { minLength: 1, maxLength: 6 }).map((w) => w.join(" "));
const entityArb = fc.record({
  name: fc.integer({ min: 0, max: 29 }).map((i) => `e${i}`),
  type: fc.constantFrom("note", "kafka", "service"),
  observations: fc.array(textArb, { minLength: 1, maxLength: 4 }),
});
const queryArb = fc.array(fc.constantFrom(...COMMON, ...RARE), { minLength: 1, maxLength: 3 }).map((w) => w.join(" "));
/** An expansion term as the tools pass it: a filler word standing for one of the query's words, as a synonym or a broader word. */
const synonymArb = fc.option(fc.record({ term: fc.constantFrom(...FILLER), of: fc.nat(), broader: fc.boolean() }), { nil: undefined });
type Synonym = { term: string; of: number; broader: boolean };

const opArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("create" as const), entities: fc.array(entityArb, { minLength: 1, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("add" as const), target: fc.nat(), text: textArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("forget" as const), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("update" as const), target: fc.nat(), text: textArb }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("merge" as const), target: fc.nat(), source: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("undo" as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("import" as const), entities: fc.array(entityArb, { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("mark" as const), target: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("relate" as const), target: fc.nat(), source: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("open" as const), target: fc.nat(), times: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("query" as const), query: queryArb, synonym: synonymArb }) },
);
const stepArb = fc.record({ days: fc.integer({ min: 0, max: 120 }), op: opArb });

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** The tools' expansion list for `synonym` over `query`'s words (empty when it names a word of the query). */
function expansionOf(query: string, synonym: Synonym | undefined): WeightedTerm[] {
  const keys = parseQuery(query).terms.map((t) => t.key);
  // A stop word ("about") is no term, so the tools drop it from an expansion too.
  if (!synonym || keys.includes(synonym.term) || keys.length === 0 || parseQuery(synonym.term).terms.length === 0) return [];
  const of = keys[synonym.of % keys.length] as string;
  return [synonym.broader ? { term: synonym.term, weight: HYPERNYM_WEIGHT, of, broader: true } : { term: synonym.term, weight: SYNONYM_WEIGHT, of }];
}

/**
 * Every entity's exact score and per-term shares for `query`, from the rows (see the module comment). An expansion
 * term adds its weight × its frequency to its word's before saturation; an entity it alone matches counts only
 * when it is a synonym, not a broader word.
 */
function reference(db: Db, query: string, now: number, expansion: readonly WeightedTerm[] = []) {
  const terms = parseQuery(query).terms.map((t) => t.key);
  const extra = expansion.map((e) => ({ key: e.term, weight: e.weight, of: terms.indexOf(e.of as string), broader: e.broader === true }));
  const entities = db.all<{
    id: number;
    name: string;
    entity_type: string;
    updated_at: number;
    uses: number;
    created_at: number;
    last_accessed_at: number | null;
    category: string;
    important: number;
    cluster_size: number;
    base_relevance: number;
  }>("SELECT id, name, entity_type, updated_at, uses, created_at, last_accessed_at, category, important, cluster_size, base_relevance FROM entities");
  const observations = db.all<{ id: number; entity_id: number; content: string }>("SELECT id, entity_id, content FROM observations");
  const relations = db.all<{ from_id: number; to_id: number }>("SELECT from_id, to_id FROM relations");
  const newest = <T extends { id: number }>(rows: T[], len: (r: T) => number) => {
    const sample = [...rows].sort((a, b) => b.id - a.id).slice(0, 500);
    return Math.max(1, sample.length === 0 ? 1 : sample.reduce((s, r) => s + len(r), 0) / sample.length);
  };
  const avgObservation = newest(observations, (o) => o.content.length);
  const label = (e: (typeof entities)[number]) => `${e.name} ${e.entity_type}`;
  const avgLabel = newest(entities, (e) => label(e).length);
  const n = Math.max(0, ...observations.map((o) => o.id)) + Math.max(0, ...entities.map((e) => e.id));
  const docs = [
    ...entities.map((e) => ({ owner: e.id, tokens: words(label(e)), len: label(e).length, label: true })),
    ...observations.map((o) => ({ owner: o.entity_id, tokens: words(o.content), len: o.content.length, label: false })),
  ];
  const idf = terms.map((t) => idfFactor(docs.filter((d) => d.tokens.includes(t)).length, n));
  const near = (tokens: string[], a: string, b: string) =>
    tokens.some((x, i) => x === a && tokens.some((y, j) => y === b && Math.abs(i - j) - 1 <= PHRASE_DISTANCE));
  const model = modelOptions(settings(env));
  const rows = entities.map((e) => {
    const own = docs.filter((d) => d.owner === e.id);
    const shares = terms.map((t, i) => {
      let tf = 0;
      for (const d of own) {
        if (!d.tokens.includes(t)) continue;
        const b = 1 - BM25_B + (BM25_B * d.len) / (d.label ? avgLabel : avgObservation);
        tf += (d.label ? LABEL_WEIGHT : 1) / b;
      }
      for (const x of extra) {
        if (x.of !== i) continue;
        for (const d of own)
          if (d.tokens.includes(x.key)) tf += (x.weight * (d.label ? LABEL_WEIGHT : 1)) / (1 - BM25_B + (BM25_B * d.len) / (d.label ? avgLabel : avgObservation));
      }
      return tf > 0 ? ((idf[i] as number) * tf * (BM25_K1 + 1)) / (BM25_K1 + tf) : 0;
    });
    const relevant = own.some((d) => terms.some((t) => d.tokens.includes(t)) || extra.some((x) => !x.broader && d.tokens.includes(x.key)));
    let lexical = shares.reduce((s, x) => s + x, 0);
    for (let i = 0; i + 1 < terms.length; i++) {
      if (own.some((d) => near(d.tokens, terms[i] as string, terms[i + 1] as string))) lexical += (PHRASE_BONUS * ((idf[i] as number) + (idf[i + 1] as number))) / 2;
    }
    const degree = relations.filter((r) => r.from_id === e.id).length + relations.filter((r) => r.to_id === e.id).length;
    const p = priority(priorityInputOf(e), now, model);
    const factor = connectionFactor(degree) * recencyFactor(now - e.updated_at) * Math.sqrt(priorityFactor(p));
    return { id: e.id, name: e.name, score: relevant ? lexical * factor : 0, shares: shares.map((s) => (relevant ? s * factor : 0)) };
  });
  return { rows, idf };
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));

/** `got` (names, in order) is a best-first top list of `want`'s scores: same length, and each place holds a score equal to the exact one at that place. */
function expectTop(got: string[], scored: Map<string, number>, want: number[], what: string) {
  expect(
    got.map((n) => scored.get(n)).every((s) => s !== undefined),
    what,
  ).toBe(true);
  expect(got.length, what).toBe(want.length);
  got.forEach((n, i) => {
    const s = scored.get(n) as number;
    expect(close(s, want[i] as number), `${what}: place ${i} holds ${n} (${s}), the exact top has ${want[i]}`).toBe(true);
  });
}

async function check(stub: DurableObjectStub<MemoryContext>, query: string, synonym?: Synonym) {
  await runInDurableObject(stub, (instance, state) => {
    const db = new Db(state.storage.sql);
    const now = instance.now();
    const expansion = expansionOf(query, synonym);
    const { rows, idf } = reference(db, query, now, expansion);
    const ref = rows.filter((r) => r.score > 0);
    const scored = new Map(ref.map((r) => [r.name, r.score]));
    const best = ref.map((r) => r.score).sort((a, b) => b - a);
    const model = modelOptions(settings(env));
    // search_nodes with every match an entry node: the exact best K, the per-term entries kept before the rest.
    // No walk (maxPathLength 0): paths between entries bring connectors, which take room from the weakest whole-query
    // matches by design (docs/search.md); this property is the ranking's, and the walk has tests of its own.
    const params = searchParams({ minRelativeScore: 0, topPerToken: 1, maxTotalNodes: K, maxPathLength: 0 }, settings(env));
    const parsed = parseQuery(query);
    const nodes = searchGraph(db, parsed, params, now, model, { expansion }).entities;
    const perTerm = parsed.terms.map((_t, i) => ({
      index: i,
      idf: idf[i] as number,
      scores: new Map(ref.filter((r) => (r.shares[i] ?? 0) > 0).map((r) => [r.id, r.shares[i] as number])),
    }));
    const concepts = new Set(chooseEntries(perTerm, 0, 1).map((e) => e.id));
    const wholeTop = ref.filter((r) => !concepts.has(r.id)).map((r) => r.score);
    wholeTop.sort((a, b) => b - a);
    const want = [...ref.filter((r) => concepts.has(r.id)).map((r) => r.score), ...wholeTop.slice(0, Math.max(0, K - concepts.size))].sort((a, b) => b - a);
    expectTop(
      nodes.map((e) => e.name),
      scored,
      want.slice(0, K),
      `search_nodes "${query}" ${JSON.stringify(expansion)}`,
    );
    for (const e of nodes) expect(close(e.score, Number((scored.get(e.name) as number).toPrecision(4))), `score of ${e.name}`).toBe(true);
    // Without per-word entries the list is the best 3 by score alone: entities whose text is weaker but whose factor
    // is larger (newer, read more, better connected) must not be left out by the ranking's bound on the factor.
    const three = searchGraph(db, parsed, searchParams({ minRelativeScore: 0, topPerToken: 0, maxTotalNodes: 3, maxPathLength: 0 }, settings(env)), now, model, {
      expansion,
    });
    expectTop(
      three.entities.map((e) => e.name),
      scored,
      best.slice(0, 3),
      `search_nodes "${query}" (best 3, no entries) ${JSON.stringify(expansion)}`,
    );
    const items = recall(db, parsed, { budgetTokens: 20_000, kinds: ["entity"], now, model, expansion }).items.filter((i) => i.via === undefined);
    expectTop(
      items.map((i) => i.name),
      scored,
      best.slice(0, items.length),
      `recall "${query}" ${JSON.stringify(expansion)}`,
    );
    expect(items.length, `recall "${query}" returns every match up to its cap`).toBe(Math.min(best.length, 40));
  });
}

describe("property: exact top k", () => {
  it("search_nodes and recall return the exhaustive scorer's best entities, at any age, through every kind of write", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 3, maxLength: 14 }), async (drawn) => {
        const steps = JSON.parse(JSON.stringify(drawn)) as typeof drawn;
        const ctx = await registered(freshContext("exact"));
        const stub = stubOf(ctx);
        let clock = Date.UTC(2024, 0, 1);
        const live = async () =>
          runInDurableObject(stub, (_i, state) =>
            new Db(state.storage.sql).all<{ name: string; obs: string | null }>(
              "SELECT e.name, (SELECT content FROM observations o WHERE o.entity_id = e.id ORDER BY o.id LIMIT 1) AS obs FROM entities e ORDER BY e.id",
            ),
          );
        for (const { days, op } of steps) {
          clock += days * DAY_MS;
          await runInDurableObject(stub, (instance) => {
            instance.now = () => clock;
          });
          const names = await live();
          const pick = (i: number) => names[i % Math.max(1, names.length)];
          const fresh = (list: { name: string; type: string; observations: string[] }[]) => {
            const seen = new Set(names.map((n) => n.name));
            return list
              .filter((e) => !seen.has(e.name) && seen.add(e.name))
              .map((e) => ({ name: e.name, entityType: e.type, observations: [...new Set(e.observations)] }));
          };
          switch (op.op) {
            case "create": {
              const list = fresh(op.entities);
              if (list.length === 0) break;
              // A name merged away earlier is an alias now: creating it is refused, and nothing is written.
              const created = await stub.createEntities(list, me);
              if (!created.ok && created.kind !== "Conflict") unwrap(created);
              break;
            }
            case "import": {
              const list = fresh(op.entities);
              if (list.length > 0)
                await stub.importBatch(
                  list.map((entity, i) => ({ line: i + 1, type: "entity", entity })),
                  as("importer", "api:import"),
                );
              break;
            }
            case "add": {
              const e = pick(op.target);
              if (e) await stub.addObservations([{ entityName: e.name, contents: [op.text] }], me);
              break;
            }
            case "delete": {
              const e = pick(op.target);
              if (e) unwrap(await stub.deleteEntities([e.name], me));
              break;
            }
            case "forget": {
              const e = pick(op.target);
              if (e?.obs) unwrap(await stub.deleteObservations([{ entityName: e.name, observations: [e.obs] }], me));
              break;
            }
            case "update": {
              const e = pick(op.target);
              if (e?.obs) await stub.updateObservation({ entityName: e.name, old: e.obs, new: op.text }, me);
              break;
            }
            case "merge": {
              const a = pick(op.target);
              const b = pick(op.source);
              if (a && b && a.name !== b.name) unwrap(await stub.mergeEntities(a.name, [b.name], me));
              break;
            }
            case "undo":
              await stub.undo({ count: 1 }, me);
              break;
            case "mark": {
              const e = pick(op.target);
              if (e) unwrap(await stub.markImportant([`entity:${e.name}`], true, me));
              break;
            }
            case "relate": {
              const a = pick(op.target);
              const b = pick(op.source);
              if (a && b) unwrap(await stub.createRelations([{ from: a.name, to: b.name, relationType: "uses" }], me));
              break;
            }
            case "open": {
              const e = pick(op.target);
              for (let i = 0; e && i < op.times; i++) unwrap(await stub.openNodes([e.name], me));
              break;
            }
            case "query":
              await check(stub, op.query, op.synonym);
              break;
          }
        }
        for (const q of [...COMMON, ...RARE, "kafka nginx", "nginx grafana kafka", "quokka kafka"]) await check(stub, q);
      }),
      { numRuns: 15 },
    );
  });
});
