/**
 * Editing a file or a document in the detail panel: "Edit file" or "Edit
 * document" swaps the content for a textarea, "Save" writes it with the
 * agent's tool (create with overwrite, or update_document), "Cancel" (or
 * Escape) goes back. A write the server refuses (a document link against
 * the rules) shows the server's message and keeps the editor and its text:
 * the tool wrote nothing. "Delete file" asks first.
 */
import type { App, WriteStep } from "./app";
import { h } from "./dom";

let editors = 0;

/** The Edit button for `content` in `slot`; Save runs `save(text)`'s steps. */
export function editButton(app: App, label: string, fieldLabel: string, slot: HTMLElement, content: string, save: (text: string) => WriteStep[]): HTMLElement {
  const shown = [...slot.childNodes];
  const button = h("button", { type: "button", class: "small write", onclick: () => edit() }, label);
  const edit = () => {
    const id = `editor-${++editors}`;
    const area = h("textarea", { id, rows: 14, spellcheck: false });
    area.value = content;
    const cancel = () => {
      slot.replaceChildren(...shown);
      button.hidden = false;
      button.focus();
    };
    const form = h(
      "form",
      {
        class: "edit",
        onsubmit: ((event: Event) => {
          event.preventDefault();
          void app.write("Saved.", save(area.value));
        }) as EventListener,
      },
      h("label", { for: id }, fieldLabel),
      area,
      h("div", { class: "row" }, h("button", { type: "submit" }, "Save"), h("button", { type: "button", onclick: cancel }, "Cancel")),
    );
    form.addEventListener("keydown", (event) => {
      if ((event as KeyboardEvent).key === "Escape") {
        event.stopPropagation();
        cancel();
      }
    });
    button.hidden = true;
    slot.replaceChildren(form);
    area.focus();
  };
  return button;
}

/** "Delete file", then "Confirm delete" (the `delete` tool). */
export function deleteFileButton(app: App, path: string, closed: () => void): HTMLElement {
  const slot = h("div", { class: "disclosure" });
  const button = h(
    "button",
    {
      type: "button",
      class: "small write danger",
      onclick: () =>
        slot.replaceChildren(
          h(
            "div",
            { class: "confirm", role: "group", "aria-label": "Confirm deletion" },
            h("p", {}, `Delete the file “${path}”? Undo can bring it back.`),
            h(
              "div",
              { class: "row" },
              h(
                "button",
                {
                  type: "button",
                  class: "danger",
                  onclick: async () => {
                    if (await app.write(`Deleted “${path}”.`, [{ tool: "delete", args: { path } }])) closed();
                  },
                },
                "Confirm delete",
              ),
              h("button", { type: "button", onclick: () => slot.replaceChildren(button) }, "Cancel"),
            ),
          ),
        ),
    },
    "Delete file",
  );
  slot.append(button);
  return slot;
}
