/**
 * The web page's entry point: sign-in, the context picker, the tabs and the
 * page-wide keys. The views it wires live next to it.
 *
 * ## Sign-in
 * The token is kept in sessionStorage (this tab only; closing it forgets
 * the token) and sent as `Authorization: Bearer` with every call. In open
 * local mode (the shell says so: loopback and no ADMIN_TOKEN) no token is
 * asked for. A call answered 401 signs the visitor out.
 *
 * ## Keys
 * `/` focuses the search box; Escape closes the detail panel (or cancels an
 * edit, handled where the edit is); arrow keys move between tabs and
 * between graph nodes.
 */
import { CallError, EngramClient } from "../mcp";
import { contextChoices, type ContextChoice, type Listed } from "../contexts";
import { AdminView } from "./admin";
import { App } from "./app";
import { AppsView } from "./apps";
import { DetailView } from "./detail";
import { ContextGraphView } from "./context-graph";
import { byId, fill, h } from "./dom";
import { EntitiesView } from "./entities";
import { HistoryView } from "./history";
import { watchChanges } from "./live";
import { DuplicatesView } from "./duplicates";
import { loadOverview } from "./overview";
import { SearchView } from "./search";
import { TransferView } from "./transfer";
import { TreesView } from "./trees";

const TOKEN_KEY = "engram.token";
const CONTEXT_KEY = "engram.context";
const SESSION_KEY = "engram.session";

const openMode = document.body.dataset.openMode === "true";

function tabSession(): string {
  let key = sessionStorage.getItem(SESSION_KEY);
  if (!key) {
    key = `web-${crypto.randomUUID()}`;
    sessionStorage.setItem(SESSION_KEY, key);
  }
  return key;
}

const client = new EngramClient({ token: () => sessionStorage.getItem(TOKEN_KEY) ?? undefined, session: tabSession() });
const app = new App(client, tabSession());
const search = new SearchView(app, (name) => void detail.open(`entity:${name}`));
const contextGraph = new ContextGraphView(app, (name) => void detail.open(`entity:${name}`));
const detail = new DetailView(app, (item) => {
  const name = item?.startsWith("entity:") ? item.slice(7) : undefined;
  search.select(name);
  contextGraph.select(name);
});
const entities = new EntitiesView(app, (item) => void detail.open(item));
const trees = new TreesView(app, (item) => void detail.open(item));
const history = new HistoryView(app);
const duplicates = new DuplicatesView(app, (item) => void detail.open(item));
const apps = new AppsView(app);
const live = watchChanges(app);
const admin = new AdminView(app);
let isAdmin = false;
/** Grants that may make the visitor the administrator ("*" with the admin role); only then is the server asked (AdminView.allowed). */
let mayAdminister = false;
new TransferView(app);

type TabId = "search" | "entities" | "graph" | "files" | "docs" | "history" | "dups" | "apps" | "admin";
const TABS: TabId[] = ["search", "entities", "graph", "files", "docs", "history", "dups", "apps", "admin"];
/** The tool a tab needs; a server that does not list it hides the tab. Entities, Graph and Connected apps need none (they read /api routes). */
const TAB_TOOL: Record<TabId, string | undefined> = {
  search: "search_nodes",
  entities: undefined,
  graph: undefined,
  files: "view",
  docs: "get_document_tree",
  history: "memory_history",
  dups: "find_duplicates",
  apps: undefined,
  admin: undefined,
};
const offered = (t: TabId) => {
  if (t === "admin") return isAdmin;
  const tool = TAB_TOOL[t];
  return tool === undefined || app.has(tool);
};
let current: TabId = "search";

function showTab(id: TabId, focus = false): void {
  current = id;
  for (const t of TABS) {
    const tab = byId(`tab-${t}`);
    tab.setAttribute("aria-selected", String(t === id));
    tab.tabIndex = t === id ? 0 : -1;
    byId(`panel-${t}`).hidden = t !== id;
  }
  if (focus) byId(`tab-${id}`).focus();
  void loadTab(id);
}

async function loadTab(id: TabId): Promise<void> {
  if (!app.context) return;
  if (id === "entities") await entities.load();
  else if (id === "graph") await contextGraph.load();
  else if (id === "files") await trees.loadFiles();
  else if (id === "docs") await trees.loadDocs();
  else if (id === "history") await history.load();
  else if (id === "dups") await duplicates.load();
  else if (id === "apps") await apps.load();
  else if (id === "admin") await admin.load();
}

for (const t of TABS) {
  const tab = byId(`tab-${t}`);
  tab.addEventListener("click", () => showTab(t));
  tab.addEventListener("keydown", (event) => {
    const visible = TABS.filter((x) => !byId(`tab-${x}`).hidden);
    const i = visible.indexOf(t);
    const to = {
      ArrowRight: visible[(i + 1) % visible.length],
      ArrowLeft: visible[(i - 1 + visible.length) % visible.length],
      Home: visible[0],
      End: visible[visible.length - 1],
    }[event.key];
    if (to) {
      event.preventDefault();
      showTab(to, true);
    }
  });
}

app.onChanged(async () => {
  await Promise.all([loadOverview(app), detail.refresh(), search.refresh(), current === "search" ? undefined : loadTab(current)]);
});

async function pickContext(choice: ContextChoice): Promise<void> {
  app.context = choice.name;
  app.choice = choice;
  sessionStorage.setItem(CONTEXT_KEY, choice.name);
  app.clearAlert();
  app.hideNotice();
  fill(byId("import-report"));
  detail.close();
  search.reset();
  entities.reset();
  contextGraph.reset();
  try {
    app.tools = new Map((await client.listTools(choice.name)).map((t) => [t.name, t]));
  } catch (error) {
    app.fail(error);
    return;
  }
  isAdmin = mayAdminister && (await admin.allowed());
  for (const t of TABS) byId(`tab-${t}`).hidden = !offered(t);
  await live.baseline();
  // Controls that write are hidden for a read grant or a read-only context.
  document.body.classList.toggle("readonly", !app.writable);
  byId("workspace").hidden = false;
  app.status(`Context ${choice.name}: ${app.writable ? "you can read and change it" : "read only for you"}.`);
  showTab(offered(current) ? current : "search");
  await loadOverview(app);
}

async function connect(): Promise<void> {
  app.clearAlert();
  app.status("Connecting…");
  let listed: Listed;
  try {
    listed = await client.call<Listed>(undefined, "list_contexts");
  } catch (error) {
    app.status("");
    app.fail(error);
    return;
  }
  byId("signin").hidden = true;
  byId("signin-help").hidden = true;
  byId("session").hidden = false;
  byId("who").textContent = openMode
    ? "Open local mode (no ADMIN_TOKEN): no token needed, and only this machine can connect."
    : "Signed in with an API token (kept in this tab only).";
  mayAdminister = listed.grants.some((g) => g.context === "*" && g.role === "admin");
  const { choices, first } = contextChoices(listed, sessionStorage.getItem(CONTEXT_KEY));
  const select = byId<HTMLSelectElement>("context");
  fill(select, ...choices.map((c) => h("option", { value: c.name }, `${c.name}${c.readOnly ? " (read-only)" : ""}${c.role === "read" ? " (read)" : ""}`)));
  select.disabled = false;
  select.onchange = () => {
    const choice = choices.find((c) => c.name === select.value);
    if (choice) void pickContext(choice);
  };
  if (!first) {
    app.fail(new Error("Your token grants no context that exists yet. Ask an administrator for a grant, or use an MCP client to create one your grant allows."));
    return;
  }
  select.value = first.name;
  await pickContext(first);
}

function signOut(message?: string): void {
  sessionStorage.removeItem(TOKEN_KEY);
  app.context = "";
  app.choice = undefined;
  detail.close();
  byId("workspace").hidden = true;
  byId("session").hidden = true;
  byId("notice").hidden = true;
  const select = byId<HTMLSelectElement>("context");
  fill(select);
  select.disabled = true;
  if (openMode) return;
  byId("signin").hidden = false;
  byId("signin-help").hidden = false;
  const input = byId<HTMLInputElement>("token");
  input.value = "";
  input.focus();
  app.status(message ?? "Signed out.");
}

app.onSignedOut(() => signOut("Your token was not accepted; sign in again."));

byId<HTMLFormElement>("signin").addEventListener("submit", (event) => {
  event.preventDefault();
  const token = byId<HTMLInputElement>("token").value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  void connect();
});
byId("signout").addEventListener("click", () => signOut());

document.addEventListener("keydown", (event) => {
  const target = event.target as HTMLElement | null;
  const typing = target?.closest("input, textarea, select, [contenteditable]") !== null && target !== null;
  if (event.key === "Escape" && !typing) {
    detail.close();
  } else if (event.key === "/" && !typing && !byId("workspace").hidden && app.has("search_nodes")) {
    event.preventDefault();
    showTab("search");
    byId("q").focus();
  }
});

if (openMode || sessionStorage.getItem(TOKEN_KEY)) void connect();
else byId("token").focus();

// Unhandled failures still reach the visitor, never only the console.
window.addEventListener("unhandledrejection", (event) => app.fail(event.reason instanceof CallError ? event.reason : new Error("Something went wrong; try again.")));
