/**
 * The Files and Documents tabs: the file memory from `view{path: "/"}` and
 * the working-memory documents from `get_document_tree`, drawn as nested
 * lists. Directories are native <details> (Enter or Space folds them);
 * files and documents are buttons that open them in the detail panel.
 * "New file" opens a form ("Path", "Content", "Create file") that writes
 * with the agent's `create` tool without overwrite, so an existing path is
 * refused with the server's message and nothing changes; a created file is
 * listed and opened.
 */
import { type DocNode, type FileNode, parseDocTree, parseFileTree } from "../trees";
import type { App } from "./app";
import { byId, fill, h, linkButton } from "./dom";

function fileList(nodes: readonly FileNode[], open: (item: string) => void): HTMLUListElement {
  return h(
    "ul",
    {},
    ...nodes.map((node) =>
      node.dir
        ? h("li", {}, h("details", { open: true }, h("summary", {}, `${node.name}/`), fileList(node.children, open)))
        : h(
            "li",
            {},
            linkButton(node.name, () => open(`file:${node.path}`), { "data-path": node.path }),
          ),
    ),
  );
}

function docList(nodes: readonly DocNode[], open: (item: string) => void): HTMLUListElement {
  return h(
    "ul",
    {},
    ...nodes.map((node) =>
      h(
        "li",
        {},
        linkButton(node.id, () => open(`doc:${node.id}`), { "data-doc": node.id }),
        node.title ? h("span", { class: "muted" }, ` ${node.title}`) : null,
        node.children.length > 0 ? docList(node.children, open) : null,
      ),
    ),
  );
}

export class TreesView {
  constructor(
    private readonly app: App,
    private readonly open: (item: string) => void,
  ) {
    byId("files-refresh").addEventListener("click", () => void this.loadFiles());
    byId("docs-refresh").addEventListener("click", () => void this.loadDocs());
    byId("files-new").addEventListener("click", () => this.newFile());
  }

  private newFile(): void {
    const toggle = byId("files-new");
    const slot = byId("files-create");
    const path = h("input", { id: "new-file-path", type: "text", required: true, autocomplete: "off", spellcheck: false, placeholder: "notes/plan.md" });
    const content = h("textarea", { id: "new-file-content", rows: 8, spellcheck: false });
    const close = () => {
      fill(slot);
      toggle.setAttribute("aria-expanded", "false");
      toggle.focus();
    };
    const form = h(
      "form",
      {
        class: "edit",
        "aria-label": "New file",
        onsubmit: (async (event: Event) => {
          event.preventDefault();
          const target = path.value.trim();
          if (!(await this.app.write(`Created “${target}”.`, [{ tool: "create", args: { path: target, file_text: content.value } }]))) return;
          close();
          await this.loadFiles();
          this.open(`file:${target.replace(/^\/+/, "")}`);
        }) as EventListener,
      },
      h("label", { for: "new-file-path" }, "Path"),
      path,
      h("label", { for: "new-file-content" }, "Content"),
      content,
      h("div", { class: "row" }, h("button", { type: "submit" }, "Create file"), h("button", { type: "button", onclick: close }, "Cancel")),
    );
    form.addEventListener("keydown", (event) => {
      if ((event as KeyboardEvent).key === "Escape") {
        event.stopPropagation();
        close();
      }
    });
    fill(slot, form);
    toggle.setAttribute("aria-expanded", "true");
    path.focus();
  }

  async loadFiles(): Promise<void> {
    const tree = byId("file-tree");
    const note = byId("files-note");
    try {
      const r = await this.app.call<{ text: string; files?: number; truncated: boolean }>("view", { path: "/" });
      const nodes = parseFileTree(r.text, r.files ?? 0);
      note.textContent = `${r.files ?? 0} files${r.truncated ? " (the tree was cut; agents view a subdirectory to see the rest)" : ""}`;
      fill(tree, nodes.length === 0 ? h("p", { class: "muted" }, "No files yet.") : fileList(nodes, this.open));
    } catch (error) {
      this.app.fail(error);
    }
  }

  async loadDocs(): Promise<void> {
    const tree = byId("doc-tree");
    const note = byId("docs-note");
    try {
      const r = await this.app.call<{ yaml: string; documents: number }>("get_document_tree", { titles: true });
      const root = parseDocTree(r.yaml);
      note.textContent = `${r.documents} ${r.documents === 1 ? "document" : "documents"}`;
      fill(tree, root ? docList([root], this.open) : h("p", { class: "muted" }, "No documents yet."));
    } catch (error) {
      this.app.fail(error);
    }
  }
}
