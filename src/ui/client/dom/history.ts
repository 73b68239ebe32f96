/**
 * Change lists (memory_history) with their Undo buttons: the History tab,
 * the overview's recent changes and an item's own history in the detail
 * panel all draw changes here.
 */
import { type Change, formatTime } from "../changes";
import type { App } from "./app";
import { byId, fill, h } from "./dom";

const PAGE = 30;

/** One change as a list item; with an Undo button when the visitor may write and it is still in effect. */
export function changeItem(app: App, c: Change, withUndo: boolean): HTMLLIElement {
  const undone = c.undoneBy !== undefined;
  return h(
    "li",
    { class: undone ? "undone" : "" },
    h("span", { class: "seq" }, `#${c.seq}`),
    " ",
    h("time", { datetime: c.at }, formatTime(c.at)),
    " ",
    h("span", { class: "caller" }, c.caller),
    " ",
    h("span", { class: "tool" }, c.tool),
    ": ",
    h("span", { class: "summary" }, c.summary),
    undone ? h("span", { class: "muted" }, ` (undone by #${c.undoneBy})`) : null,
    withUndo && app.writable && !undone
      ? h("button", { type: "button", class: "small write", "aria-label": `Undo change #${c.seq} (${c.tool})`, onclick: () => void app.undo(c.seq) }, "Undo")
      : null,
  );
}

export class HistoryView {
  private oldest: number | undefined;

  constructor(private readonly app: App) {
    byId("history-refresh").addEventListener("click", () => void this.load());
    byId("history-more").addEventListener("click", () => void this.load(this.oldest));
    byId("undo-last").addEventListener("click", () => void app.undo());
    byId<HTMLFormElement>("history-filter").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.load();
    });
  }

  /** The newest changes, or the page before `before`, appended. */
  async load(before?: number): Promise<void> {
    const list = byId("history");
    const more = byId("history-more");
    byId("undo-last").hidden = !this.app.writable;
    if (!this.app.has("memory_history")) {
      fill(list, h("li", { class: "muted" }, "This server offers no history tools."));
      more.hidden = true;
      return;
    }
    try {
      const caller = byId<HTMLInputElement>("history-caller").value.trim();
      const item = byId<HTMLInputElement>("history-item").value.trim();
      // The tool filter, where the server lists it (an older one gets no field).
      const byTool = this.app.takes("memory_history", "tool");
      const toolInput = byId<HTMLInputElement>("history-tool");
      toolInput.hidden = !byTool;
      for (const label of toolInput.labels ?? []) label.hidden = !byTool;
      const tool = byTool ? toolInput.value.trim() : "";
      const r = await this.app.call<{ changes: Change[]; more: boolean }>("memory_history", {
        limit: PAGE,
        ...(before !== undefined ? { before } : {}),
        ...(caller ? { caller } : {}),
        ...(tool ? { tool } : {}),
        ...(item ? { item } : {}),
      });
      const items = r.changes.map((c) => changeItem(this.app, c, true));
      if (before === undefined) fill(list, ...items);
      else list.append(...items);
      if (before === undefined && r.changes.length === 0) fill(list, h("li", { class: "muted" }, caller || tool || item ? "No change matches." : "No changes yet."));
      this.oldest = r.changes[r.changes.length - 1]?.seq ?? this.oldest;
      more.hidden = !r.more;
    } catch (error) {
      this.app.fail(error);
    }
  }
}
