/**
 * Creating, renaming, relating and deleting entities on the page. Every
 * change is App.write over the MCP tools an agent calls (create_entities,
 * merge_entities, create_relations, delete_relations, delete_entities), so
 * it is attributed to the visitor's token, kept in history and undoable.
 *
 * Renaming is create_entities with the new name and the same type, then
 * merge_entities into it: the observations and relations move, the old
 * name stays as an alias, and the notice's Undo (on the first change)
 * reverts both, as the later change touches the same item.
 */
import type { App } from "./app";
import { h } from "./dom";

let formCounter = 0;

const field = (label: string, control: HTMLInputElement | HTMLTextAreaElement) => {
  control.id = `curate-${++formCounter}`;
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control);
};

const submitting = (run: () => void) =>
  ((event: Event) => {
    event.preventDefault();
    run();
  }) as EventListener;

/** The "New entity" form: Name, Type, Observations (one per line), Create; then opens the new entity. */
export function newEntityForm(app: App, opened: (item: string) => void, done: () => void): HTMLFormElement {
  const name = h("input", { required: true, autocomplete: "off" });
  const type = h("input", { required: true, autocomplete: "off" });
  const observations = h("textarea", { rows: 3 });
  const create = async () => {
    const entityName = name.value.trim();
    const entityType = type.value.trim();
    if (entityName === "" || entityType === "") return;
    const lines = observations.value
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "");
    const ok = await app.write(`Created “${entityName}”.`, [
      { tool: "create_entities", args: { entities: [{ name: entityName, entityType, observations: lines }] } },
    ]);
    if (ok) {
      done();
      opened(`entity:${entityName}`);
    }
  };
  return h(
    "form",
    { class: "edit curate", "aria-label": "New entity", onsubmit: submitting(() => void create()) },
    field("Name", name),
    field("Type", type),
    field("Observations", observations),
    h("p", { class: "hint" }, "One observation per line."),
    h("div", { class: "row" }, h("button", { type: "submit" }, "Create"), h("button", { type: "button", onclick: done }, "Cancel")),
  );
}

/** A button that swaps itself for a form; the form's Cancel (or Escape) swaps back. */
function disclosure(label: string, build: (close: () => void) => HTMLElement): HTMLElement {
  const slot = h("div", { class: "disclosure" });
  const button = h("button", { type: "button", class: "small write", onclick: () => openForm() }, label);
  const close = () => {
    slot.replaceChildren(button);
    button.focus();
  };
  const openForm = () => {
    const form = build(close);
    form.addEventListener("keydown", (event) => {
      if ((event as KeyboardEvent).key === "Escape") {
        event.stopPropagation();
        close();
      }
    });
    slot.replaceChildren(form);
    form.querySelector<HTMLElement>("input, textarea, button")?.focus();
  };
  slot.append(button);
  return slot;
}

/** Names to suggest for a relation's far end: the context's best-ranked entities, one page. */
async function suggestions(app: App, list: HTMLDataListElement): Promise<void> {
  try {
    const page = await app.client.getJson<{ entities: { name: string }[] }>(`/contexts/${encodeURIComponent(app.context)}/entities?sort=priority&limit=200`);
    list.replaceChildren(...page.entities.map((e) => h("option", { value: e.name })));
  } catch {
    // Suggestions are a convenience: typing a name works without them.
  }
}

/** Rename, Add relation and Delete entity for the open entity `name` of type `entityType`. */
export function entityActions(app: App, name: string, entityType: string, opened: (item: string) => void, closed: () => void): HTMLElement {
  const rename = app.has("merge_entities")
    ? disclosure("Rename", (close) => {
        const input = h("input", { required: true, autocomplete: "off", value: name });
        const run = async () => {
          const next = input.value.trim();
          if (next === "" || next === name) return close();
          const ok = await app.write(`Renamed “${name}” to “${next}”.`, [
            { tool: "create_entities", args: { entities: [{ name: next, entityType, observations: [] }] } },
            { tool: "merge_entities", args: { target: next, sources: [name] } },
          ]);
          if (ok) opened(`entity:${next}`);
        };
        return h(
          "form",
          { class: "edit curate", "aria-label": "Rename entity", onsubmit: submitting(() => void run()) },
          field("New name", input),
          h("div", { class: "row" }, h("button", { type: "submit" }, "Rename"), h("button", { type: "button", onclick: close }, "Cancel")),
        );
      })
    : null;
  const relate = disclosure("Add relation", (close) => {
    const listId = `names-${++formCounter}`;
    const list = h("datalist", { id: listId });
    void suggestions(app, list);
    const type = h("input", { required: true, autocomplete: "off" });
    const to = h("input", { required: true, autocomplete: "off", list: listId });
    const run = async () => {
      const relationType = type.value.trim();
      const target = to.value.trim();
      if (relationType === "" || target === "") return;
      await app.write(`Related “${name}” ${relationType} “${target}”.`, [
        { tool: "create_relations", args: { relations: [{ from: name, to: target, relationType }] } },
      ]);
    };
    return h(
      "form",
      { class: "edit curate", "aria-label": "Add relation", onsubmit: submitting(() => void run()) },
      field("Relation type", type),
      field("To", to),
      list,
      h("div", { class: "row" }, h("button", { type: "submit" }, "Add"), h("button", { type: "button", onclick: close }, "Cancel")),
    );
  });
  const remove = disclosure("Delete entity", (close) => {
    const run = async () => {
      const ok = await app.write(`Deleted “${name}”.`, [{ tool: "delete_entities", args: { entityNames: [name] } }]);
      if (ok) closed();
    };
    return h(
      "div",
      { class: "confirm", role: "group", "aria-label": "Confirm deletion" },
      h("p", {}, `Delete “${name}” with its observations and relations? Undo can bring it back.`),
      h(
        "div",
        { class: "row" },
        h("button", { type: "button", class: "danger", onclick: () => void run() }, "Confirm delete"),
        h("button", { type: "button", onclick: close }, "Cancel"),
      ),
    );
  });
  return h("div", { class: "entity-actions write" }, rename, relate, remove);
}

/** The delete control of one relation of the open entity. */
export function relationDelete(app: App, relation: { from: string; to: string; relationType: string }): HTMLElement | null {
  if (!app.writable) return null;
  return h(
    "button",
    {
      type: "button",
      class: "small write danger",
      // Named by its type only: the list item around it says which entities it joins.
      "aria-label": `Delete this ${relation.relationType} relation`,
      onclick: () => void app.write("Relation deleted.", [{ tool: "delete_relations", args: { relations: [relation] } }]),
    },
    "Delete",
  );
}
