/**
 * The Connected apps tab: the OAuth grants apps got through the consent
 * page (GET /api/oauth/grants?revoked=true; docs/oauth.md): a live one
 * with a Revoke button (DELETE /api/oauth/grants/<id>), an ended one marked
 * as ended, with when and why, and no button. The administrator sees every
 * grant, a teammate the grants their own token consented to: the API decides.
 */
import { byLiveness, type GrantRow, grantSummary } from "../apps";
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
      const { grants } = await this.app.client.getJson<{ grants: GrantRow[] }>("/oauth/grants?revoked=true");
      if (grants.length === 0) {
        fill(list, h("li", { class: "muted" }, "No app is connected. Apps connect through OAuth: see docs/oauth.md."));
        return;
      }
      fill(list, ...[...grants].sort(byLiveness).map((g) => this.item(g)));
    } catch (error) {
      this.app.fail(error);
    }
  }

  private item(g: GrantRow): HTMLLIElement {
    const what = grantSummary(g);
    const used = g.lastUsedAt === null ? "never used" : `last used ${formatTime(g.lastUsedAt)}`;
    if (g.revokedAt !== null) {
      return h(
        "li",
        { class: "muted", "data-status": "revoked" },
        h("s", {}, h("strong", {}, g.clientName)),
        " via ",
        h("span", { class: "caller" }, g.tokenName),
        ": ",
        h("span", { class: "tool" }, what),
        " ",
        h("span", {}, `(ended ${formatTime(g.revokedAt)}: ${g.revokedReason ?? "revoked"}; connected ${formatTime(g.createdAt)}, ${used})`),
      );
    }
    return h(
      "li",
      { "data-status": "live" },
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
