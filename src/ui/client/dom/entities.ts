/**
 * The Entities tab: every entity of the context without a search, one page
 * at a time from the server (GET /api/contexts/<name>/entities, keyset
 * cursors), sorted by name, last update or priority and filtered by type.
 * "Previous" and "Next" follow the cursors the server gives; nothing is
 * loaded beyond the page shown.
 */
import { formatTime } from "../changes";
import type { App } from "./app";
import { newEntityForm } from "./curate";
import { byId, fill, h } from "./dom";

const PAGE = 50;

interface Page {
  entities: { name: string; entityType: string; updatedAt: number; important: boolean; observations: number; degree: number }[];
  next?: string;
  previous?: string;
  types?: { type: string; count: number }[];
}

export class EntitiesView {
  private page: Page | undefined;
  private cursor: string | undefined;
  private number = 1;
  /** The latest load's number: an answer to an earlier one (the visitor changed the sort meanwhile) is dropped. */
  private loads = 0;

  constructor(
    private readonly app: App,
    private readonly open: (item: string) => void,
  ) {
    const first = () => {
      this.cursor = undefined;
      this.number = 1;
      void this.load();
    };
    byId("entities-sort").addEventListener("change", first);
    byId("entities-type").addEventListener("change", first);
    byId("entities-new").addEventListener("click", () => this.showCreate());
    byId("entities-next").addEventListener("click", () => this.turn(this.page?.next, 1));
    byId("entities-previous").addEventListener("click", () => this.turn(this.page?.previous, -1));
  }

  /** The "New entity" form above the list; it closes after a creation or on Cancel. */
  private showCreate(): void {
    const slot = byId("entity-create");
    const button = byId("entities-new");
    const done = () => {
      slot.hidden = true;
      fill(slot);
      button.hidden = false;
      button.focus();
    };
    fill(slot, newEntityForm(this.app, this.open, done));
    slot.hidden = false;
    button.hidden = true;
    slot.querySelector<HTMLElement>("input")?.focus();
  }

  reset(): void {
    this.page = undefined;
    this.cursor = undefined;
    this.number = 1;
    byId("entity-create").hidden = true;
    byId("entities-new").hidden = false;
    byId<HTMLSelectElement>("entities-sort").value = "name";
    fill(byId("entities-type"), h("option", { value: "" }, "All types"));
    fill(byId("entities-list"));
  }

  private turn(cursor: string | undefined, step: number): void {
    if (cursor === undefined) return;
    this.cursor = cursor;
    this.number += step;
    void this.load();
  }

  /** Shows the current page again (after a change, or on opening the tab). */
  async load(): Promise<void> {
    const sort = byId<HTMLSelectElement>("entities-sort").value;
    const typeSelect = byId<HTMLSelectElement>("entities-type");
    const type = typeSelect.value;
    const query = new URLSearchParams({ sort, limit: String(PAGE) });
    if (type !== "") query.set("type", type);
    if (this.cursor !== undefined) query.set("cursor", this.cursor);
    const load = ++this.loads;
    let page: Page;
    try {
      page = await this.app.client.getJson<Page>(`/contexts/${encodeURIComponent(this.app.context)}/entities?${query}`);
    } catch (error) {
      if (load === this.loads) this.app.fail(error);
      return;
    }
    if (load !== this.loads) return;
    this.page = page;
    if (page.types) {
      fill(typeSelect, h("option", { value: "" }, "All types"), ...page.types.map((t) => h("option", { value: t.type }, `${t.type} (${t.count})`)));
      typeSelect.value = page.types.some((t) => t.type === type) ? type : "";
    }
    fill(
      byId("entities-list"),
      ...page.entities.map((e) =>
        h(
          "tr",
          {},
          h(
            "td",
            {},
            h("button", { type: "button", class: "link", "data-name": e.name, onclick: () => this.open(`entity:${e.name}`) }, e.name),
            e.important ? h("span", { class: "muted", title: "Marked important" }, " ★") : null,
          ),
          h("td", {}, e.entityType),
          h("td", { class: "num" }, String(e.observations)),
          h("td", { class: "num" }, String(e.degree)),
          h("td", {}, formatTime(e.updatedAt)),
        ),
      ),
    );
    pager(byId<HTMLButtonElement>("entities-previous"), page.previous === undefined, "This is the first page.");
    pager(byId<HTMLButtonElement>("entities-next"), page.next === undefined, "This is the last page.");
    byId("entities-note").textContent = page.entities.length === 0 ? "No entities." : `Page ${this.number}: ${page.entities.length} entities.`;
  }
}

/** Turns a pager button off at the end of the list, saying why in its title. */
function pager(button: HTMLButtonElement, off: boolean, why: string): void {
  button.disabled = off;
  if (off) button.title = why;
  else button.removeAttribute("title");
}
