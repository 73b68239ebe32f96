/**
 * The Graph tab: the whole context as a picture, its most important and
 * most connected entities first (GET /api/contexts/<name>/graph, ranked by
 * the server), up to a cap that "Show more" raises; clicking a node opens
 * it and brings its neighbours in. Reading the picture is not an access.
 */
import { graphOf, type SearchGraph } from "../graph";
import type { App } from "./app";
import { byId } from "./dom";
import { GraphView } from "./graph-view";

const STEP = 50;
const MAX = 500;
const NEIGHBOURS = 30;

interface Picture {
  entities: { name: string; entityType: string; observations: number }[];
  relations: { from: string; to: string; relationType: string }[];
  total: number;
}

const picture = (app: App, query: string) => app.client.getJson<Picture>(`/contexts/${encodeURIComponent(app.context)}/graph?${query}`);

/** `name` and its best-ranked neighbours as a graph, for bringing into a picture. */
export async function neighbourhood(app: App, name: string): Promise<SearchGraph | undefined> {
  try {
    return graphOf(await picture(app, `around=${encodeURIComponent(name)}&limit=${NEIGHBOURS}`));
  } catch (error) {
    app.fail(error);
    return undefined;
  }
}

export class ContextGraphView {
  private cap = STEP;
  private readonly view: GraphView;

  constructor(
    private readonly app: App,
    open: (name: string) => void,
  ) {
    this.view = new GraphView(byId("context-graph"), { label: "Graph of the context", open, neighbourhood: (name) => neighbourhood(app, name) });
    byId("graph-more").addEventListener("click", () => {
      this.cap = Math.min(MAX, this.cap + STEP);
      void this.load();
    });
  }

  reset(): void {
    this.cap = STEP;
    this.view.show(undefined);
  }

  select(name: string | undefined): void {
    this.view.select(name);
  }

  async load(): Promise<void> {
    try {
      const p = await picture(this.app, `limit=${this.cap}`);
      this.view.show(graphOf(p));
      const shown = p.entities.length;
      byId("graph-note").textContent =
        shown < p.total
          ? `Showing ${shown} of ${p.total} entities, the most important and most connected first.`
          : `All ${p.total} ${p.total === 1 ? "entity" : "entities"}.`;
      byId("graph-more").hidden = shown >= p.total || this.cap >= MAX;
    } catch (error) {
      this.app.fail(error);
    }
  }
}
