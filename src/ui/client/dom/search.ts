/**
 * The Search tab: search_nodes on the picked context, drawn as a graph
 * (./graph-view.ts) and listed as buttons. Entry nodes, connectors and
 * scores are shown when the engine gives them (see ../graph.ts).
 */
import { graphOf, searchSummary, type SearchGraph } from "../graph";
import type { App } from "./app";
import { byId, fill, h } from "./dom";
import { neighbourhood } from "./context-graph";
import { GraphView, nodeLabel } from "./graph-view";

interface SearchResult {
  entities: { name: string; entityType: string; observations: string[]; score?: number; role?: string }[];
  relations: { from: string; to: string; relationType: string }[];
  paths?: string[][];
  note?: string;
}

export class SearchView {
  private graph: SearchGraph | undefined;
  private query = "";
  private readonly view: GraphView;

  constructor(
    private readonly app: App,
    private readonly openEntity: (name: string) => void,
  ) {
    this.view = new GraphView(byId("graph"), { label: "Graph of the search result", open: openEntity, neighbourhood: (name) => neighbourhood(app, name) });
    byId<HTMLFormElement>("search-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.search(byId<HTMLInputElement>("q").value);
    });
    // Redraw at the new width; the layout is deterministic, so nodes keep their places relative to each other.
    let pending = 0;
    window.addEventListener("resize", () => {
      clearTimeout(pending);
      pending = window.setTimeout(() => this.view.redraw(), 150);
    });
  }

  reset(): void {
    this.graph = undefined;
    this.query = "";
    byId<HTMLInputElement>("q").value = "";
    this.view.show(undefined);
    fill(byId("results"));
    byId("legend").hidden = true;
    byId("search-note").textContent = "";
  }

  /** Runs the last query again (after a change). */
  async refresh(): Promise<void> {
    if (this.query !== "") await this.search(this.query, true);
  }

  async search(query: string, quiet = false): Promise<void> {
    const q = query.trim();
    if (q === "") return;
    this.query = q;
    this.app.clearAlert();
    const note = byId("search-note");
    if (!quiet) note.textContent = "Searching…";
    try {
      const r = await this.app.call<SearchResult>("search_nodes", { query: q });
      this.graph = graphOf(r);
      const summary = searchSummary(q, this.graph, r.paths?.length);
      note.textContent = r.note ? `${summary} ${r.note}` : summary;
      // Without roles (an engine that does not rank entries) every node is a plain match: no legend needed.
      byId("legend").hidden = !this.graph.hasRoles;
      this.draw();
    } catch (error) {
      note.textContent = "";
      this.app.fail(error);
    }
  }

  /** Marks the open entity in the picture and the list. */
  select(name: string | undefined): void {
    this.view.select(name);
    for (const el of byId("results").querySelectorAll("button")) el.setAttribute("aria-current", String(el.dataset.name === name));
  }

  private draw(): void {
    if (!this.graph) return;
    const selected = this.app.openItem?.startsWith("entity:") ? this.app.openItem.slice(7) : undefined;
    this.view.select(selected);
    this.view.show(this.graph);
    fill(
      byId("results"),
      ...this.graph.nodes.map((node) =>
        h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: `result ${node.role}`,
              "data-name": node.id,
              "aria-label": nodeLabel(node),
              "aria-current": String(node.id === selected),
              onclick: () => this.openEntity(node.id),
            },
            h("span", { class: `swatch ${node.role}`, "aria-hidden": "true" }),
            h("span", { class: "name" }, node.id),
            h("span", { class: "muted" }, ` ${node.entityType}`),
            node.score !== undefined ? h("span", { class: "score" }, ` ${node.score}`) : null,
          ),
        ),
      ),
    );
  }
}
