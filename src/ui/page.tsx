/** @jsxImportSource hono/jsx */
/**
 * The web page's shell, rendered on the server with Hono JSX: landmarks,
 * labelled controls and empty regions that the browser client
 * (src/ui/client/dom/main.ts) fills from the MCP endpoint.
 *
 * ## Invariants
 * - The shell holds no memory data and no secret: it is the same for every
 *   visitor, so it needs no authentication. Everything shown later comes
 *   from calls that carry the visitor's token.
 * - Every control has a label; the search results exist as a list as well
 *   as a graph, so nothing is reachable only by pointer.
 * - Only same-origin scripts and styles (the CSP in ./routes.tsx enforces it).
 */
import type { FC } from "hono/jsx";

export interface ShellProps {
  /** Open local mode: no ADMIN_TOKEN and a loopback host, so no token is needed. */
  openMode: boolean;
  /** Whether the deployment has an ADMIN_TOKEN: without one, only loopback names are served (src/auth/). */
  adminToken: boolean;
  /** Where the client's script and stylesheet are served (Workers static assets: UI_ASSETS in ./routes.tsx). */
  script: string;
  style: string;
}

const Tab: FC<{ id: string; label: string; selected?: boolean }> = ({ id, label, selected }) => (
  <button type="button" role="tab" id={`tab-${id}`} aria-controls={`panel-${id}`} aria-selected={selected ? "true" : "false"} tabindex={selected ? 0 : -1}>
    {label}
  </button>
);

const SignIn: FC<{ openMode: boolean }> = ({ openMode }) => (
  <div class="signin-area">
    <form id="signin" aria-label="Sign in" hidden={openMode}>
      <label for="token">API token</label>
      <input id="token" name="token" type="password" autocomplete="off" spellcheck={false} required aria-describedby="token-hint" />
      <button type="submit">Sign in</button>
      <span id="token-hint" class="hint">
        Kept for this tab only.
      </span>
    </form>
    <div id="session" class="session" hidden>
      <span id="who"></span>
      <button type="button" id="signout" hidden={openMode}>
        Sign out
      </button>
    </div>
  </div>
);

/** What a signed-out visitor needs to know: where a token comes from, and that a local server needs none. */
const SignInHelp: FC<{ openMode: boolean; adminToken: boolean }> = ({ openMode, adminToken }) => (
  <section id="signin-help" class="signin-help" aria-labelledby="signin-help-h" hidden={openMode}>
    <h2 id="signin-help-h">Signing in</h2>
    {adminToken ? (
      <p>
        This server has an administrator token (<code>ADMIN_TOKEN</code>), so you sign in with an API token to see the memory. Paste yours into <em>API token</em>{" "}
        above; it is kept in this tab only and sent with every call the page makes.
      </p>
    ) : (
      <p>
        This server has no administrator token (<code>ADMIN_TOKEN</code>), so it answers only requests addressed to <code>localhost</code>, <code>127.0.0.1</code> or{" "}
        <code>[::1]</code> (open local mode), not to this name. Open it at one of those, or set <code>ADMIN_TOKEN</code> (
        <code>wrangler secret put ADMIN_TOKEN</code>) to serve it here.
      </p>
    )}
    <ul>
      <li>
        <strong>Getting a token:</strong> an administrator mints one for you with{" "}
        <code>npm run admin -- token create &lt;your-name&gt; --grant '&lt;context&gt;=write'</code> (printed once; a grant can be limited to some contexts, or to
        reading).
      </li>
      <li>
        <strong>Administrators</strong> sign in with the server's <code>ADMIN_TOKEN</code> itself.
      </li>
      <li>
        <strong>On your own machine</strong> no token is needed: without <code>ADMIN_TOKEN</code>, <code>npm start</code> serves <code>http://127.0.0.1:8787</code>{" "}
        in <em>open local mode</em>, which only this machine can reach.
      </li>
    </ul>
  </section>
);

const Overview: FC = () => (
  <section id="overview" class="overview" aria-labelledby="overview-h">
    <h2 id="overview-h">Overview</h2>
    <p id="context-info" class="muted"></p>
    <dl id="counts" class="counts"></dl>
    <p id="capacity" class="muted"></p>
    <h3>Recent changes</h3>
    <ol id="recent" class="changes"></ol>
    <h3>Export and import</h3>
    <button type="button" id="export">
      Export
    </button>
    <form id="import-form" class="write transfer" aria-label="Import memory.jsonl">
      <label for="import-file">Import</label>
      <input id="import-file" type="file" accept=".jsonl,.ndjson,application/x-ndjson,application/jsonl" />
      <button type="submit">Import</button>
    </form>
    <div id="import-report" aria-live="polite"></div>
  </section>
);

const SearchPanel: FC = () => (
  <section role="tabpanel" id="panel-search" aria-labelledby="tab-search" class="panel">
    {/* biome-ignore lint/a11y/useSemanticElements: the form is the search landmark; a <search> wrapper would change the markup the client and tests use */}
    <form id="search-form" role="search" class="row">
      <label for="q">Search memory</label>
      <input id="q" name="q" type="search" autocomplete="off" placeholder="words in names, types, observations" />
      <button type="submit">Search</button>
    </form>
    <p id="search-note" class="muted" aria-live="polite"></p>
    <ul id="legend" class="legend" aria-label="Legend" hidden>
      <li>
        <span class="swatch entry"></span>entry node (best match for a word)
      </li>
      <li>
        <span class="swatch connector"></span>connector (on a path between entries)
      </li>
      <li>
        <span class="swatch other"></span>other match
      </li>
    </ul>
    <div id="graph" class="graph"></div>
    <h3 class="sr-only" id="results-h">
      Results
    </h3>
    <ul id="results" class="results" aria-labelledby="results-h"></ul>
  </section>
);

/** Every entity, a page at a time, sorted and filtered (src/ui/client/dom/entities.ts). */
const EntitiesPanel: FC = () => (
  <section role="tabpanel" id="panel-entities" aria-labelledby="tab-entities" class="panel" hidden>
    <h2 class="sr-only">Entities</h2>
    <div class="row">
      <label for="entities-sort">Sort by</label>
      <select id="entities-sort">
        <option value="name">Name</option>
        <option value="updated">Last update</option>
        <option value="priority">Priority</option>
      </select>
      <label for="entities-type">Filter by type</label>
      <select id="entities-type">
        <option value="">All types</option>
      </select>
      <button type="button" id="entities-new" class="write">
        New entity
      </button>
    </div>
    <div id="entity-create" hidden></div>
    <table class="entities">
      <caption id="entities-note" class="muted" aria-live="polite"></caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Type</th>
          <th scope="col">Observations</th>
          <th scope="col">Relations</th>
          <th scope="col">Updated</th>
        </tr>
      </thead>
      <tbody id="entities-list"></tbody>
    </table>
    <div class="row">
      <button type="button" id="entities-previous" disabled title="This is the first page.">
        Previous
      </button>
      <button type="button" id="entities-next" disabled title="This is the last page.">
        Next
      </button>
    </div>
  </section>
);

/** The whole context as a picture, most important and connected first (src/ui/client/dom/context-graph.ts). */
const GraphPanel: FC = () => (
  <section role="tabpanel" id="panel-graph" aria-labelledby="tab-graph" class="panel" hidden>
    <h2 class="sr-only">Graph</h2>
    <div class="row">
      <span id="graph-note" class="muted" aria-live="polite"></span>
      <button type="button" id="graph-more" hidden>
        Show more
      </button>
    </div>
    <div id="context-graph" class="graph"></div>
  </section>
);

const TreePanel: FC<{ id: string; label: string; treeId: string }> = ({ id, label, treeId }) => (
  <section role="tabpanel" id={`panel-${id}`} aria-labelledby={`tab-${id}`} class="panel" hidden>
    <div class="row">
      <h2 class="sr-only">{label}</h2>
      <button type="button" id={`${id}-refresh`}>
        Refresh
      </button>
      {id === "files" ? (
        <button type="button" id="files-new" class="write" aria-expanded="false" aria-controls="files-create">
          New file
        </button>
      ) : null}
      <span id={`${id}-note`} class="muted"></span>
    </div>
    {id === "files" ? <div id="files-create"></div> : null}
    <div id={treeId} class="tree"></div>
  </section>
);

const HistoryPanel: FC = () => (
  <section role="tabpanel" id="panel-history" aria-labelledby="tab-history" class="panel" hidden>
    <div class="row">
      <h2 class="sr-only">History</h2>
      <button type="button" id="history-refresh">
        Refresh
      </button>
      <button type="button" id="undo-last" class="write">
        Undo my last change
      </button>
    </div>
    <form id="history-filter" class="row" aria-label="Filter the history">
      <label for="history-caller">Caller</label>
      <input id="history-caller" autocomplete="off" placeholder="token name" />
      <label for="history-tool">Tool</label>
      <input id="history-tool" autocomplete="off" placeholder="update_observation" />
      <label for="history-item">Item</label>
      <input id="history-item" autocomplete="off" placeholder="entity:Alice, file:notes/a.md, doc:root" />
      <button type="submit">Filter</button>
    </form>
    <ol id="history" class="changes"></ol>
    <button type="button" id="history-more" hidden>
      Older changes
    </button>
  </section>
);

/** Apps connected through OAuth (docs/oauth.md): the administrator's all, a teammate's own; filled by src/ui/client/dom/apps.ts. */
const AppsPanel: FC = () => (
  <section role="tabpanel" id="panel-apps" aria-labelledby="tab-apps" class="panel" hidden>
    <div class="row">
      <h2 class="sr-only">Connected apps</h2>
      <button type="button" id="apps-refresh">
        Refresh
      </button>
    </div>
    <ul id="apps-list" class="changes"></ul>
  </section>
);

/**
 * Contexts, tokens and the picked context's webhooks, for the administrator only (src/ui/client/dom/admin.ts).
 * Without an ADMIN_TOKEN the server mints no token (every token would be refused), so the mint form gives way to why.
 */
const AdminPanel: FC<{ adminToken: boolean }> = ({ adminToken }) => (
  <section role="tabpanel" id="panel-admin" aria-labelledby="tab-admin" class="panel" hidden>
    <h2>Contexts</h2>
    <form id="admin-context-form" class="row">
      <label for="admin-context-name">Context name</label>
      <input id="admin-context-name" autocomplete="off" required />
      <button type="submit">Create context</button>
    </form>
    <ul id="admin-contexts" class="changes"></ul>
    <h2>Tokens</h2>
    <p id="admin-token-mode" class="hint" hidden={adminToken}>
      This server runs in open local mode (no <code>ADMIN_TOKEN</code>), which accepts no tokens, so it mints none: tokens need an <code>ADMIN_TOKEN</code> (in{" "}
      <code>.dev.vars</code> for <code>npm start</code>). Tokens minted before are listed here and can be revoked.
    </p>
    <form id="admin-token-form" class="row" hidden={!adminToken}>
      <label for="admin-token-name">Token name</label>
      <input id="admin-token-name" autocomplete="off" required />
      <label for="admin-token-grants">Grants</label>
      <input id="admin-token-grants" autocomplete="off" placeholder="team=write, docs=read" />
      <button type="submit">Mint token</button>
    </form>
    <div id="admin-secret" aria-live="polite"></div>
    <ul id="admin-tokens" class="changes"></ul>
    <h2>
      Webhooks of <span id="admin-webhooks-context"></span>
    </h2>
    <form id="admin-webhook-form" class="row">
      <label for="admin-webhook-url">Webhook URL</label>
      <input id="admin-webhook-url" autocomplete="off" inputmode="url" placeholder="https://example.com/hook" required />
      <label for="admin-webhook-secret">Webhook secret</label>
      <input id="admin-webhook-secret" type="password" autocomplete="new-password" required />
      <button type="submit">Add webhook</button>
    </form>
    <ul id="admin-webhooks" class="changes"></ul>
  </section>
);

/** find_duplicates' suggestions, each with its merge buttons (src/ui/client/dom/duplicates.ts). */
const DuplicatesPanel: FC = () => (
  <section role="tabpanel" id="panel-dups" aria-labelledby="tab-dups" class="panel" hidden>
    <div class="row">
      <h2 class="sr-only">Duplicates</h2>
      <button type="button" id="dups-refresh">
        Find duplicates
      </button>
      <span id="dups-note" class="muted" aria-live="polite"></span>
    </div>
    <ul id="dups" class="changes" aria-label="Likely duplicates"></ul>
  </section>
);

export const Shell: FC<ShellProps> = ({ openMode, adminToken, script, style }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <title>engram: team memory</title>
      {/* No icon file: an empty data URL keeps browsers from asking for /favicon.ico. */}
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href={style} />
      <script type="module" src={script}></script>
    </head>
    <body data-open-mode={openMode ? "true" : "false"}>
      <a class="skip" href="#workspace">
        Skip to the memory
      </a>
      <header class="bar">
        <h1>engram</h1>
        <SignIn openMode={openMode} />
        <div class="context-pick">
          <label for="context">Context</label>
          <select id="context" disabled></select>
        </div>
      </header>
      <p id="status" class="status" role="status" aria-live="polite"></p>
      <div id="alert" class="alert" role="alert" hidden></div>
      <div id="notice" class="notice" role="status" aria-live="polite" hidden>
        <span id="notice-text"></span>
        <button type="button" id="notice-undo" class="write">
          Undo
        </button>
      </div>
      <SignInHelp openMode={openMode} adminToken={adminToken} />
      <main id="workspace" class="workspace" tabindex={-1} hidden>
        <Overview />
        <div class="center">
          <div role="tablist" aria-label="Views" class="tabs">
            <Tab id="search" label="Search" selected />
            <Tab id="entities" label="Entities" />
            <Tab id="graph" label="Graph" />
            <Tab id="files" label="Files" />
            <Tab id="docs" label="Documents" />
            <Tab id="history" label="History" />
            <Tab id="dups" label="Duplicates" />
            <Tab id="apps" label="Connected apps" />
            <Tab id="admin" label="Administration" />
          </div>
          <SearchPanel />
          <EntitiesPanel />
          <GraphPanel />
          <TreePanel id="files" label="Files" treeId="file-tree" />
          <TreePanel id="docs" label="Documents" treeId="doc-tree" />
          <HistoryPanel />
          <DuplicatesPanel />
          <AppsPanel />
          <AdminPanel adminToken={adminToken} />
        </div>
        <aside id="detail" class="detail" aria-labelledby="detail-h" hidden>
          <div class="row detail-head">
            {/* biome-ignore lint/a11y/useHeadingContent: the client fills the heading when it opens an item (src/ui/client/dom/detail.ts) */}
            <h2 id="detail-h" tabindex={-1}></h2>
            <button type="button" id="detail-close" aria-label="Close details (Escape)">
              ×
            </button>
          </div>
          <div id="detail-body"></div>
        </aside>
      </main>
      <noscript>This page needs JavaScript. Agents use the MCP endpoint at /mcp.</noscript>
    </body>
  </html>
);
