/**
 * The Administration tab, for the administrator only: contexts (create,
 * toggle read-only, remove) and API tokens (mint with grants, the secret
 * shown once; list; revoke), through the admin REST routes the command
 * line uses (/api/contexts, /api/tokens) and the remove_context tool; and
 * the picked context's webhooks (add with a secret, never shown again; list
 * with delivery state; remove) through /api/contexts/<name>/webhooks.
 * Whether to show the tab is the server's answer to GET /api/tokens: a
 * refusal hides it, and every route refuses anyone else anyway.
 */
import type { App } from "./app";
import { byId, fill, h } from "./dom";

interface ContextRow {
  name: string;
  description: string;
  readOnly: boolean;
}
interface TokenRow {
  id: string;
  name: string;
  grants: { context: string; role: string }[];
  lastUsedAt: string | null;
}
interface WebhookRow {
  id: string;
  url: string;
  lastStatus?: string;
  failures: number;
  failing: boolean;
}

/** "ctx=role, other=read" as grants; a bad entry is named. */
function parseGrants(text: string): { context: string; role: string }[] {
  return text
    .split(/[,\s]+/)
    .filter((g) => g !== "")
    .map((g) => {
      const [context, role] = g.split("=");
      if (!context || !role) throw new Error(`Grant “${g}”: write it as context=role (read, write or admin).`);
      return { context, role };
    });
}

export class AdminView {
  constructor(private readonly app: App) {
    byId<HTMLFormElement>("admin-context-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.createContext();
    });
    byId<HTMLFormElement>("admin-token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.mint();
    });
    byId<HTMLFormElement>("admin-webhook-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.addWebhook();
    });
  }

  private webhooksPath(): string {
    return `/contexts/${encodeURIComponent(this.app.context)}/webhooks`;
  }

  /** Whether the visitor is the administrator: the server decides. */
  async allowed(): Promise<boolean> {
    try {
      await this.app.client.getJson("/tokens");
      return true;
    } catch {
      return false;
    }
  }

  private async run(action: () => Promise<void>): Promise<void> {
    this.app.clearAlert();
    try {
      await action();
    } catch (error) {
      this.app.fail(error);
    }
    await this.load();
  }

  async load(): Promise<void> {
    try {
      const [{ contexts }, { tokens }, { webhooks }] = await Promise.all([
        this.app.client.getJson<{ contexts: ContextRow[] }>("/contexts"),
        this.app.client.getJson<{ tokens: TokenRow[] }>("/tokens"),
        this.app.client.getJson<{ webhooks: WebhookRow[] }>(this.webhooksPath()),
      ]);
      byId("admin-webhooks-context").textContent = this.app.context;
      fill(
        byId("admin-webhooks"),
        ...(webhooks.length === 0
          ? [h("li", { class: "muted" }, "No webhooks in this context.")]
          : webhooks.map((w) =>
              h(
                "li",
                {},
                h("span", { class: "name" }, w.url),
                h(
                  "span",
                  { class: "muted" },
                  ` last status: ${w.lastStatus ?? "none yet"}, failures: ${w.failures}, ${w.failing ? "failing (sends nothing more)" : "not failing"}`,
                ),
                " ",
                h(
                  "button",
                  {
                    type: "button",
                    class: "small danger",
                    "aria-label": `Remove webhook ${w.url}`,
                    onclick: () => void this.run(async () => void (await this.app.client.deleteJson(`${this.webhooksPath()}/${encodeURIComponent(w.id)}`))),
                  },
                  "Remove",
                ),
              ),
            )),
      );
      fill(
        byId("admin-contexts"),
        ...contexts.map((c) =>
          h(
            "li",
            {},
            h("span", { class: "name" }, c.name),
            c.readOnly ? h("span", { class: "muted" }, " (read-only)") : null,
            " ",
            h(
              "button",
              {
                type: "button",
                class: "small toggle",
                "aria-pressed": String(c.readOnly),
                "aria-label": `Read-only: ${c.name}`,
                onclick: () => void this.run(() => this.app.client.sendJson("PATCH", `/contexts/${encodeURIComponent(c.name)}`, { readOnly: !c.readOnly })),
              },
              "Read-only",
            ),
            " ",
            h(
              "button",
              {
                type: "button",
                class: "small danger",
                "aria-label": `Remove context ${c.name}`,
                onclick: () => void this.run(async () => void (await this.app.client.callTool(undefined, "remove_context", { name: c.name }))),
              },
              "Remove",
            ),
          ),
        ),
      );
      fill(
        byId("admin-tokens"),
        ...tokens.map((t) =>
          h(
            "li",
            {},
            h("span", { class: "name" }, t.name),
            h("span", { class: "muted" }, ` ${t.grants.map((g) => `${g.context}=${g.role}`).join(", ") || "no grants"}`),
            " ",
            h(
              "button",
              {
                type: "button",
                class: "small danger",
                "aria-label": `Revoke token ${t.name}`,
                onclick: () => void this.run(async () => void (await this.app.client.deleteJson(`/tokens/${encodeURIComponent(t.id)}`))),
              },
              "Revoke",
            ),
          ),
        ),
      );
    } catch (error) {
      this.app.fail(error);
    }
  }

  private async createContext(): Promise<void> {
    const input = byId<HTMLInputElement>("admin-context-name");
    const name = input.value.trim();
    if (name === "") return;
    await this.run(async () => {
      await this.app.client.sendJson("POST", "/contexts", { name });
      input.value = "";
    });
  }

  private async addWebhook(): Promise<void> {
    const url = byId<HTMLInputElement>("admin-webhook-url");
    const secret = byId<HTMLInputElement>("admin-webhook-secret");
    if (url.value.trim() === "") return;
    await this.run(async () => {
      await this.app.client.sendJson("POST", this.webhooksPath(), { url: url.value.trim(), secret: secret.value });
      url.value = "";
      secret.value = "";
    });
  }

  private async mint(): Promise<void> {
    const name = byId<HTMLInputElement>("admin-token-name").value.trim();
    const grantsText = byId<HTMLInputElement>("admin-token-grants").value;
    if (name === "") return;
    await this.run(async () => {
      const minted = await this.app.client.sendJson<{ token: string; name: string }>("POST", "/tokens", { name, grants: parseGrants(grantsText) });
      // Shown once: the server keeps only a hash.
      fill(
        byId("admin-secret"),
        h("p", {}, `Token for ${minted.name}, shown once; copy it now:`),
        h("code", { id: "admin-secret-value", tabindex: 0 }, minted.token),
      );
    });
  }
}
