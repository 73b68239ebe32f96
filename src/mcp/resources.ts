/**
 * The resources: `memory://brief` (the context's briefing), the templates
 * `memory://entity/{name}`, `memory://file/{+path}` and `memory://doc/{id}`
 * (one item, read through the same object calls as open_nodes, view and
 * read_document, so a read counts as an access), and `memory://knowledge-graph`
 * (the first page of read_graph, kept for clients written for the official
 * memory server). Each appears only with its toolset: graph for entities and
 * the knowledge graph, files, documents; the brief with any of the three,
 * showing the kinds served.
 *
 * resources/list pages through the brief, the knowledge graph and then every
 * item of the served kinds, RESOURCES_PAGE at a time; its cursor is the last
 * item's key.
 */
import { ResourceNotFoundError, ResourceTemplate, type McpServer } from "@modelcontextprotocol/server";
import { itemKey, itemRef, type ItemKind } from "../items";
import { BRIEF_TOKENS } from "../priority/brief";
import { decodeName, runGuarded, invalid, noteLines, resourceUri, servedKinds, unwrapped, type GuideScope } from "./guide";

const RESOURCES_PAGE = 100;
const BRIEF_URI = "memory://brief";
const GRAPH_URI = "memory://knowledge-graph";

export const TEMPLATES: Readonly<Record<ItemKind, { name: string; uriTemplate: string; variable: string; title: string; description: string }>> = {
  entity: {
    name: "entity",
    uriTemplate: "memory://entity/{name}",
    variable: "name",
    title: "Entity",
    description: "One entity with its observations and relations (like open_nodes; counts as a use)",
  },
  file: {
    name: "file",
    uriTemplate: "memory://file/{+path}",
    variable: "path",
    title: "File",
    description: "One file's numbered lines (like view; counts as a use)",
  },
  doc: {
    name: "doc",
    uriTemplate: "memory://doc/{id}",
    variable: "id",
    title: "Document",
    description: "One document (like read_document; counts as a use)",
  },
};

const text = (uri: string, mimeType: string, body: string) => ({ contents: [{ uri, mimeType, text: body }] });

/** The brief's text for memory://brief and the brief prompt. */
export async function readBrief(scope: GuideScope, label: string, maxTokens = BRIEF_TOKENS) {
  const opened = await scope.open(label);
  const header = `${noteLines(opened)}# Memory brief of context "${opened.name}" (marked important, then most used, then most recent)`;
  return unwrapped(await opened.stub.brief({ maxTokens, kinds: servedKinds(scope.toolsets), header }, opened.meta));
}

async function readItem(scope: GuideScope, kind: ItemKind, uri: string, raw: string | string[] | undefined) {
  const name = decodeName(raw);
  if (name === undefined || name === "") throw new ResourceNotFoundError(uri);
  const opened = await scope.open(`resource:${kind}`);
  if (kind === "entity") {
    const found = unwrapped(await opened.stub.openNodes([name], opened.meta), uri);
    if (found.entities.length === 0) throw new ResourceNotFoundError(uri, `Resource not found: ${uri} (no entity named ${JSON.stringify(name)})`);
    const { notFound: _, ...graph } = found;
    return text(uri, "application/json", JSON.stringify(graph));
  }
  if (kind === "file") {
    const view = unwrapped(await opened.stub.viewFile(name, undefined, opened.meta), uri);
    if (view.type !== "file") throw new ResourceNotFoundError(uri, `Resource not found: ${uri} is a directory; read a file under it`);
    return text(uri, "text/plain", view.text);
  }
  const doc = unwrapped(await opened.stub.readDocument(name, opened.meta), uri);
  return text(uri, "text/markdown", doc.content);
}

/** Registers the resources the connection's toolsets serve, and replaces the SDK's resources/list with a paged one. */
export function registerResources(server: McpServer, scope: GuideScope): void {
  const kinds = servedKinds(scope.toolsets);
  if (kinds.length === 0) return;
  // No list_changed notification is ever sent (a 2025-era session hears only of its subscriptions, ./subscriptions.ts).
  server.server.registerCapabilities({ resources: { listChanged: false } });
  const fixed: { uri: string; name: string; title: string; description: string; mimeType: string }[] = [
    {
      uri: BRIEF_URI,
      name: "brief",
      title: "Memory brief",
      description: `What this context holds that matters most: marked important, then most used, then most recent, within ${BRIEF_TOKENS} tokens`,
      mimeType: "text/markdown",
    },
  ];
  server.registerResource("brief", BRIEF_URI, { title: fixed[0]?.title, description: fixed[0]?.description, mimeType: "text/markdown" }, (uri) =>
    runGuarded("resource:brief", async () => text(uri.href, "text/markdown", (await readBrief(scope, "resource:brief")).text)),
  );
  if (scope.toolsets.has("graph")) {
    const graph = {
      uri: GRAPH_URI,
      name: "knowledge-graph",
      title: "Knowledge Graph",
      description: "The knowledge graph of the current context (first page; use read_graph to page further)",
      mimeType: "application/json",
    };
    fixed.push(graph);
    server.registerResource(graph.name, graph.uri, { title: graph.title, description: graph.description, mimeType: graph.mimeType }, (uri) =>
      runGuarded("resource:knowledge-graph", async () => {
        const opened = await scope.open("resource:knowledge-graph");
        return text(uri.href, "application/json", JSON.stringify(unwrapped(await opened.stub.readGraph({}, opened.meta))));
      }),
    );
  }
  for (const kind of kinds) {
    const t = TEMPLATES[kind];
    server.registerResource(t.name, new ResourceTemplate(t.uriTemplate, { list: undefined }), { title: t.title, description: t.description }, (uri, variables) =>
      runGuarded(`resource:${kind}`, () => readItem(scope, kind, uri.href, variables[t.variable])),
    );
  }

  server.server.setRequestHandler("resources/list", (request) =>
    runGuarded("resources/list", async () => {
      const cursor = request.params?.cursor;
      const after = cursor ? itemRef(cursor) : undefined;
      if (cursor && (!after || !kinds.includes(after.kind))) throw invalid(`Invalid cursor ${JSON.stringify(cursor)}: pass the nextCursor of the previous page.`);
      const opened = await scope.open("resources/list");
      const first = after === undefined ? fixed : [];
      const page = unwrapped(await opened.stub.listItems(kinds, after, RESOURCES_PAGE - first.length, opened.meta));
      const items = page.items.map((i) => ({ uri: resourceUri[i.kind](i.name), name: itemKey[i.kind](i.name), title: TEMPLATES[i.kind].title }));
      return { resources: [...first, ...items], ...(page.next ? { nextCursor: itemKey[page.next.kind](page.next.name) } : {}) };
    }),
  );
}
