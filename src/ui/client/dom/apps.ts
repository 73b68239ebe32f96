/**
 * The Connected apps tab: the OAuth grants apps got through the consent
 * page (GET /api/oauth/grants; docs/oauth.md), each with a Revoke button
 * (DELETE /api/oauth/grants/<id>). The administrator sees every grant, a
 * teammate the grants their own token consented to: the API decides.
 */
import { type GrantRow, grantSummary } from "../apps";
import { formatTime } from "../changes";
import type { App } from "./app";
import { byId, fill, h } from "./dom";

export class AppsView {
  constructor(private readonly app: App) {
    byId("apps-refresh").addEventListener("click", () => void this.load());
  }

  async load(): Promise<void> {
    const list = byId("apps-list");
    try {
      const { grants } = await this.app.client.getJson<{ grants: GrantRow[] }>("/oauth/grants");
      if (grants.length === 0) {
        fill(list, h("li", { class: "muted" }, "No app is connected. Apps connect through OAuth: see docs/oauth.md."));
        return;
      }
      fill(list, ...grants.map((g) => this.item(g)));
    } catch (error) {
      this.app.fail(error);
    }
  }

  private item(g: GrantRow): HTMLLIElement {
    const what = grantSummary(g);
    const used = g.lastUsedAt === null ? "never used" : `last used ${formatTime(g.lastUsedAt)}`;
    return h(
      "li",
      {},
      h("strong", {}, g.clientName),
      " via ",
      h("span", { class: "caller" }, g.tokenName),
      ": ",
      h("span", { class: "tool" }, what),
      " ",
      h("span", { class: "muted" }, `(connected ${formatTime(g.createdAt)}, ${used}) `),
      h(
        "button",
        { type: "button", class: "small danger", "aria-label": `Revoke ${g.clientName} (via ${g.tokenName})`, onclick: () => void this.revoke(g) },
        "Revoke",
      ),
    );
  }

  private async revoke(g: GrantRow): Promise<void> {
    this.app.clearAlert();
    try {
      await this.app.client.deleteJson(`/oauth/grants/${encodeURIComponent(g.id)}`);
      this.app.status(`Revoked ${g.clientName}: its access and refresh tokens no longer work.`);
    } catch (error) {
      this.app.fail(error);
    }
    await this.load();
  }
}
