/**
 * An entity in the detail panel: observations (edit, delete, add),
 * relations, related items (co-visitation), access statistics and its own
 * history, plus the importance mark when the server offers mark_important.
 *
 * Opening an entity is open_nodes, the same call an agent makes, so it
 * counts as an access and feeds co-visitation like an agent's. Edits go
 * through update_observation (the old text is kept as superseded), or
 * add_observations then delete_observations on a server without it (see
 * App.write). Superseded observations show greyed with when they held, and
 * an "as of" picker shows the entity as it stood then (open_nodes asOf),
 * read-only. Under each current observation, a muted line says who wrote it
 * and when (open_nodes provenance, where the server offers it).
 *
 * Editing an observation: Enter saves, Shift+Enter starts a new line,
 * Escape cancels and returns focus to the Edit button.
 */
import { asOfFromPicker, heldLabel, pickerValue, type Superseded } from "../asof";
import { type Change, formatTime } from "../changes";
import { parseItem } from "../trees";
import type { App } from "./app";
import { entityActions, relationDelete } from "./curate";
import { fill, h, linkButton } from "./dom";
import { changeItem } from "./history";

interface Opened {
  entities: { name: string; entityType: string; observations: string[]; superseded?: Superseded[]; provenance?: Provenance[] }[];
  relations: { from: string; to: string; relationType: string }[];
  related?: { item: string; count: number }[];
  notFound?: string[];
}

/** Who wrote a current observation and when (open_nodes `provenance`). */
interface Provenance {
  observation: string;
  by: string;
  at: string;
}

interface AccessStats {
  accessCount: number;
  /** Opened (open_nodes, this panel included) versus found in search results; absent from older servers. */
  openedCount?: number;
  searchCount?: number;
  lastAccessedAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** The priority feature's columns (absent from a server without it). */
  important?: boolean;
  category?: string;
  tier?: string;
  priority?: number;
}

let editCounter = 0;

/** Enter submits, Shift+Enter is a new line, Escape cancels. */
function editKeys(submit: () => void, cancel: () => void): EventListener {
  return ((event: KeyboardEvent) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      cancel();
    }
  }) as EventListener;
}

/** The observation's text, with "by <who> · <when>" under it when its writer is known. */
function observationText(text: string, by: Provenance | undefined): HTMLElement {
  if (!by) return h("span", { class: "text" }, text);
  return h("div", { class: "written" }, h("span", { class: "text" }, text), h("span", { class: "by muted" }, `by ${by.by} · ${formatTime(by.at)}`));
}

/** The provenance entry of observation `text` (open_nodes lists them in the order of the observations). */
const writerOf = (p: Provenance | undefined, text: string) => (p?.observation === text ? p : undefined);

function observationItem(app: App, entity: string, text: string, past: boolean, by?: Provenance): HTMLLIElement {
  const li = h("li", { class: "observation" });
  if (past) return h("li", { class: "observation" }, h("span", { class: "text" }, text));
  const show = () => {
    const edit = h("button", { type: "button", class: "small write", "aria-label": `Edit observation: ${text.slice(0, 60)}`, onclick: () => startEdit() }, "Edit");
    const del = h(
      "button",
      {
        type: "button",
        class: "small write danger",
        "aria-label": `Delete observation: ${text.slice(0, 60)}`,
        onclick: () =>
          void app.write("Observation deleted.", [{ tool: "delete_observations", args: { deletions: [{ entityName: entity, observations: [text] }] } }]),
      },
      "Delete",
    );
    li.replaceChildren(observationText(text, by), app.writable ? h("span", { class: "actions" }, edit, del) : "");
    return edit;
  };
  const startEdit = () => {
    const id = `edit-${++editCounter}`;
    const area = h("textarea", { id, rows: Math.min(8, Math.max(2, Math.ceil(text.length / 60))) });
    area.value = text;
    const cancel = () => show().focus();
    const save = () => {
      const next = area.value.trim();
      if (next === "" || next === text) return cancel();
      if (app.has("update_observation")) {
        void app.write("Observation updated; the old text is kept as superseded.", [
          { tool: "update_observation", args: { entityName: entity, old: text, new: next } },
        ]);
        return;
      }
      void app.write("Observation edited.", [
        // Add first: if the delete then fails, nothing is lost, and the notice offers to undo the add.
        { tool: "add_observations", args: { observations: [{ entityName: entity, contents: [next] }] } },
        { tool: "delete_observations", args: { deletions: [{ entityName: entity, observations: [text] }] } },
      ]);
    };
    const form = h(
      "form",
      {
        class: "edit",
        onsubmit: ((e: Event) => {
          e.preventDefault();
          save();
        }) as EventListener,
      },
      h("label", { for: id, class: "sr-only" }, "Edit observation (Enter saves, Escape cancels)"),
      area,
      h("button", { type: "submit", class: "small" }, "Save"),
      h("button", { type: "button", class: "small", onclick: cancel }, "Cancel"),
    );
    area.addEventListener("keydown", editKeys(save, cancel));
    li.replaceChildren(form);
    area.focus();
  };
  show();
  return li;
}

function addForm(app: App, entity: string): HTMLFormElement {
  const id = `add-${++editCounter}`;
  const area = h("textarea", { id, rows: 2, required: true });
  const submit = () => {
    const text = area.value.trim();
    if (text === "") return;
    void app.write("Observation added.", [{ tool: "add_observations", args: { observations: [{ entityName: entity, contents: [text] }] } }]);
  };
  area.addEventListener(
    "keydown",
    editKeys(submit, () => (area.value = "")),
  );
  return h(
    "form",
    {
      class: "edit add",
      onsubmit: ((e: Event) => {
        e.preventDefault();
        submit();
      }) as EventListener,
    },
    h("label", { for: id }, "New observation"),
    area,
    h("button", { type: "submit", class: "small" }, "Add observation"),
  );
}

/** The importance toggle; only when the server lists mark_important (the priority feature). */
function importantToggle(app: App, item: string, marked: boolean): HTMLElement | null {
  if (!app.has("mark_important") || !app.writable) return null;
  return h(
    "button",
    {
      type: "button",
      id: "important",
      class: "toggle write",
      "aria-pressed": String(marked),
      onclick: () =>
        void app.write(marked ? "Importance mark removed." : "Marked important.", [{ tool: "mark_important", args: { items: [item], important: !marked } }]),
    },
    marked ? "★ Important" : "☆ Mark important",
  );
}

/** A superseded observation, greyed, with when it held. */
const supersededItem = (s: Superseded) =>
  h("li", { class: "observation superseded" }, h("span", { class: "text" }, s.text), h("span", { class: "held muted" }, heldLabel(s)));

/** The "as of" picker: choosing a time shows the entity as it stood then; "Now" comes back. */
function asOfPicker(asOf: string | undefined, show: (asOf: string | undefined) => void): HTMLElement {
  const input = h("input", { type: "datetime-local", id: "asof", value: asOf ? pickerValue(asOf) : undefined });
  input.addEventListener("change", () => show(asOfFromPicker(input.value)));
  return h(
    "div",
    { class: "asof" },
    h("label", { for: "asof" }, "As of"),
    input,
    asOf ? h("button", { type: "button", class: "small", id: "asof-now", onclick: () => show(undefined) }, "Now") : null,
    asOf ? h("span", { class: "muted", role: "status" }, `Showing ${formatTime(asOf)}, read-only.`) : null,
  );
}

export async function renderEntity(
  app: App,
  body: HTMLElement,
  name: string,
  open: (item: string) => void,
  closed: () => void,
  asOf?: string,
): Promise<string | undefined> {
  // update_observation comes with includeSuperseded and asOf (docs/graph.md); an older server gets the plain call.
  const dated = app.has("update_observation");
  const args = { names: [name], ...(dated ? { includeSuperseded: true } : {}), ...(asOf ? { asOf } : {}) };
  // Who wrote each current observation (docs/team.md), where the server lists provenance; one that refuses
  // it together with includeSuperseded gets the call without it.
  const r =
    asOf === undefined && app.takes("open_nodes", "provenance")
      ? await app.call<Opened>("open_nodes", { ...args, provenance: true }).catch(() => app.call<Opened>("open_nodes", args))
      : await app.call<Opened>("open_nodes", args);
  const entity = r.entities[0];
  const item = `entity:${name}`;
  const again = (at: string | undefined) => void renderEntity(app, body, name, open, closed, at).catch((error) => app.fail(error));
  if (!entity && asOf) {
    fill(body, asOfPicker(asOf, again), h("p", { class: "muted" }, `“${name}” did not exist at that time.`));
    return item;
  }
  if (!entity) return undefined;
  const past = asOf !== undefined;
  const superseded = entity.superseded ?? [];
  const [stats, history] = await Promise.all([
    app.client
      .getJson<{ entities?: AccessStats[] }>(`/contexts/${encodeURIComponent(app.context)}/stats?entity=${encodeURIComponent(name)}`)
      .then((s) => s.entities?.[0])
      .catch(() => undefined),
    app.has("memory_history") ? app.call<{ changes: Change[] }>("memory_history", { item, limit: 5 }).catch(() => undefined) : undefined,
  ]);

  const other = (rel: Opened["relations"][number]) => (rel.from === name ? rel.to : rel.from);
  fill(
    body,
    h("p", { class: "muted" }, entity.entityType),
    app.writable && !past ? entityActions(app, name, entity.entityType, open, closed) : null,
    dated ? asOfPicker(asOf, again) : null,
    // The mark is part of the entity's statistics: open_nodes keeps the official shape.
    past ? null : importantToggle(app, item, stats?.important === true),
    h("h3", {}, `Observations (${entity.observations.length})`),
    h("ul", { class: "observations" }, ...entity.observations.map((o, i) => observationItem(app, name, o, past, writerOf(entity.provenance?.[i], o)))),
    app.writable && !past ? addForm(app, name) : null,
    superseded.length > 0 ? h("h3", {}, `Superseded (${superseded.length})`) : null,
    superseded.length > 0 ? h("ul", { class: "observations", "aria-label": "Superseded observations" }, ...superseded.map(supersededItem)) : null,
    h("h3", {}, `Relations (${r.relations.length})`),
    r.relations.length === 0
      ? h("p", { class: "muted" }, "None.")
      : h(
          "ul",
          { class: "relations" },
          ...r.relations.map((rel) =>
            h(
              "li",
              {},
              rel.from === name ? "→ " : "← ",
              h("em", {}, rel.relationType),
              " ",
              linkButton(other(rel), () => open(`entity:${other(rel)}`)),
              past ? null : relationDelete(app, rel),
            ),
          ),
        ),
    relatedList(r.related ?? [], open),
    h("h3", {}, "Access"),
    stats
      ? h(
          "dl",
          { class: "stats" },
          ...retrievals(stats),
          h("dt", {}, "Last used"),
          h("dd", { title: "Opened or found in search" }, formatTime(stats.lastAccessedAt)),
          h("dt", {}, "Created"),
          h("dd", {}, formatTime(stats.createdAt)),
          h("dt", {}, "Updated"),
          h("dd", {}, formatTime(stats.updatedAt)),
          ...(stats.category === undefined ? [] : [h("dt", {}, "Priority"), h("dd", {}, `${stats.priority ?? ""} (${stats.category}, ${stats.tier ?? ""} term)`)]),
        )
      : h("p", { class: "muted" }, "Unavailable."),
    history ? h("h3", {}, "Recent changes") : null,
    history ? h("ol", { class: "changes" }, ...history.changes.map((c) => changeItem(app, c, true))) : null,
  );
  return item;
}

const times = (n: number) => `${n} ${n === 1 ? "time" : "times"}`;

/** How often the entity was opened and how often it was found in search results, each said as what it is. */
function retrievals(stats: AccessStats): HTMLElement[] {
  if (stats.openedCount === undefined || stats.searchCount === undefined) {
    return [h("dt", {}, "Used"), h("dd", {}, `${times(stats.accessCount)} (opened or found in search)`)];
  }
  return [h("dt", {}, "Opened"), h("dd", {}, times(stats.openedCount)), h("dt", {}, "Found in search"), h("dd", {}, times(stats.searchCount))];
}

/** Items used together with this one (co-visitation), as buttons that open them. */
export function relatedList(related: readonly { item: string; count: number }[], open: (item: string) => void): HTMLElement | null {
  if (related.length === 0) return null;
  return h(
    "section",
    { class: "related" },
    h("h3", {}, "Related (used together)"),
    h(
      "ul",
      {},
      ...related.map((r) => {
        const parsed = parseItem(r.item);
        const label = parsed ? `${parsed.kind === "entity" ? "" : `${parsed.kind}: `}${parsed.name}` : r.item;
        return h("li", {}, parsed ? linkButton(label, () => open(r.item)) : label, h("span", { class: "muted" }, ` ${r.count}×`));
      }),
    ),
  );
}
