/**
 * The Duplicates tab: find_duplicates' suggestions, each with a one-click
 * merge either way (merge_entities through App.write, whose notice offers
 * Undo) and a link to open either entity.
 */
import { type DuplicatePair, mergeStep, pairSummary } from "../duplicates";
import type { App } from "./app";
import { byId, fill, h, linkButton } from "./dom";

export class DuplicatesView {
  constructor(
    private readonly app: App,
    private readonly open: (item: string) => void,
  ) {
    byId("dups-refresh").addEventListener("click", () => void this.load());
  }

  async load(): Promise<void> {
    const list = byId("dups");
    try {
      const r = await this.app.call<{ pairs: DuplicatePair[] }>("find_duplicates", {});
      byId("dups-note").textContent = r.pairs.length === 0 ? "No likely duplicates." : `${r.pairs.length} likely duplicate pairs, best first.`;
      fill(list, ...r.pairs.map((p) => this.item(p)));
    } catch (error) {
      this.app.fail(error);
    }
  }

  private item(p: DuplicatePair): HTMLLIElement {
    const merge = (target: string, source: string) =>
      h(
        "button",
        {
          type: "button",
          class: "small write",
          "aria-label": `Merge "${source}" into "${target}"`,
          onclick: () => void this.app.write(`Merged "${source}" into "${target}".`, [mergeStep(target, source)]),
        },
        `Keep ${target}`,
      );
    return h(
      "li",
      {},
      linkButton(p.a, () => this.open(`entity:${p.a}`)),
      " ~ ",
      linkButton(p.b, () => this.open(`entity:${p.b}`)),
      " ",
      h("span", { class: "muted" }, pairSummary(p)),
      " ",
      this.app.writable ? merge(p.a, p.b) : null,
      this.app.writable ? merge(p.b, p.a) : null,
    );
  }
}
