/**
 * The detail panel: shows one item (an entity, a file or a document) by
 * its key, and shows it again after a change. Escape or the × button
 * closes it and returns focus where the visitor was.
 */
import { docLinks, fileContent, parseItem } from "../trees";
import type { App } from "./app";
import { byId, fill, h, linkButton } from "./dom";
import { deleteFileButton, editButton } from "./editor";
import { relatedList, renderEntity } from "./entity";

interface FileView {
  path: string;
  type: "file" | "directory";
  text: string;
  lines?: { from: number; to: number; total: number };
  truncated: boolean;
  related: { item: string; count: number }[];
}

export class DetailView {
  private returnFocus: HTMLElement | null = null;

  constructor(
    private readonly app: App,
    private readonly onShown: (item: string | undefined) => void,
  ) {
    byId("detail-close").addEventListener("click", () => this.close());
  }

  /** Opens `item`; `refresh` keeps focus where it is (the same item, shown again). */
  async open(item: string, refresh = false): Promise<void> {
    const parsed = parseItem(item);
    if (!parsed) return;
    if (!refresh) {
      this.returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      this.app.clearAlert();
    }
    const panel = byId("detail");
    const heading = byId("detail-h");
    const body = byId("detail-body");
    try {
      let shown: string | undefined;
      if (parsed.kind === "entity")
        shown = await renderEntity(
          this.app,
          body,
          parsed.name,
          (i) => void this.open(i),
          () => this.close(),
        );
      else if (parsed.kind === "file") shown = await this.renderFile(body, parsed.name);
      else shown = await this.renderDoc(body, parsed.name);
      if (shown === undefined) {
        // Gone (deleted, or undone): say so rather than show stale content.
        if (refresh && this.app.openItem === item) fill(body, h("p", { class: "muted" }, "This item no longer exists."));
        else this.app.fail(new Error(`${parsed.kind} “${parsed.name}” was not found in ${this.app.context}.`));
        if (!refresh) return;
      }
      heading.textContent = parsed.name;
      panel.setAttribute("data-kind", parsed.kind);
      panel.hidden = false;
      this.app.openItem = item;
      this.onShown(item);
      if (!refresh) heading.focus();
    } catch (error) {
      this.app.fail(error);
    }
  }

  async refresh(): Promise<void> {
    if (this.app.openItem !== undefined && !byId("detail").hidden) await this.open(this.app.openItem, true);
  }

  close(): void {
    const panel = byId("detail");
    if (panel.hidden) return;
    panel.hidden = true;
    this.app.openItem = undefined;
    this.onShown(undefined);
    if (this.returnFocus?.isConnected) this.returnFocus.focus();
    else byId("workspace").focus();
  }

  private async renderFile(body: HTMLElement, path: string): Promise<string | undefined> {
    let r: FileView;
    try {
      r = await this.app.call<FileView>("view", { path });
    } catch (error) {
      if (error instanceof Error && /NotFound|No file/.test(error.message)) return undefined;
      throw error;
    }
    const lines = r.lines ? `Lines ${r.lines.from}-${r.lines.to} of ${r.lines.total}` : r.type;
    const slot = h("div", {}, h("pre", { class: "content", tabindex: 0, "aria-label": `Content of ${path}` }, r.text));
    const content = r.type === "file" ? fileContent(r) : undefined;
    const writable = this.app.writable && r.type === "file";
    fill(
      body,
      h("p", { class: "muted" }, r.truncated ? `${lines} (cut; an agent pages with view_range)` : lines),
      writable
        ? h(
            "div",
            { class: "entity-actions write" },
            content === undefined
              ? null
              : editButton(this.app, "Edit file", "File content", slot, content, (text) => [{ tool: "create", args: { path, file_text: text, overwrite: true } }]),
            deleteFileButton(this.app, path, () => this.close()),
          )
        : null,
      slot,
      relatedList(r.related, (i) => void this.open(i)),
    );
    return `file:${path}`;
  }

  private async renderDoc(body: HTMLElement, id: string): Promise<string | undefined> {
    let r: { id: string; content: string };
    try {
      r = await this.app.call<{ id: string; content: string }>("read_document", { id });
    } catch (error) {
      if (error instanceof Error && /not found/i.test(error.message)) return undefined;
      throw error;
    }
    const children = docLinks(r.content);
    const slot = h("div", {}, h("pre", { class: "content", tabindex: 0, "aria-label": `Content of document ${id}` }, r.content));
    fill(
      body,
      this.app.writable
        ? h(
            "div",
            { class: "entity-actions write" },
            editButton(this.app, "Edit document", "Document content", slot, r.content, (text) => [{ tool: "update_document", args: { id, content: text } }]),
          )
        : null,
      slot,
      h("p", { class: "hint" }, "Link [[new-id]] to create a child document; remove a link to delete that child."),
      h("h3", {}, `Linked documents (${children.length})`),
      children.length === 0
        ? h("p", { class: "muted" }, "None.")
        : h(
            "ul",
            {},
            ...children.map((c) =>
              h(
                "li",
                {},
                linkButton(c, () => void this.open(`doc:${c}`)),
              ),
            ),
          ),
    );
    return `doc:${id}`;
  }
}
