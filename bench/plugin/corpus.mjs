/**
 * A project's memory as a team would hold it, and prompts a developer types
 * in Claude Code: ones the memory answers (each with the key of the item
 * that answers it) and chit-chat that it must not answer. The recall
 * threshold of the Claude Code plugin is chosen on these
 * (bench/plugin/threshold.mjs), and test/e2e/plugin.e2e.ts seeds the same
 * memory.
 */

/** Entities for create_entities. */
export const ENTITIES = [
  {
    name: "Deploy pipeline",
    entityType: "process",
    observations: [
      "Production deploys run from GitHub Actions on a tag matching v*",
      "The deploy job runs npx wrangler deploy after the test suite passes",
      "Rollback: npx wrangler rollback to the previous version id",
    ],
  },
  {
    name: "Staging environment",
    entityType: "environment",
    observations: [
      "Staging is the wrangler environment named staging, deployed on every merge to main",
      "Staging uses its own KV namespace and a separate ADMIN_TOKEN secret",
    ],
  },
  {
    name: "Postgres migration policy",
    entityType: "decision",
    observations: [
      "Database migrations are append-only numbered SQL files; a shipped migration is never edited",
      "Each migration runs inside one transaction and is tracked by version number",
    ],
  },
  {
    name: "Rate limiter",
    entityType: "component",
    observations: [
      "The API rate limiter allows 100 requests per minute per token, using a sliding window in a Durable Object",
      "Exceeding the limit answers HTTP 429 with a Retry-After header",
    ],
  },
  {
    name: "Alice Moreau",
    entityType: "person",
    observations: ["Alice owns the billing service and reviews every change to invoices", "Alice prefers small pull requests with a test per behaviour"],
  },
  {
    name: "Billing service",
    entityType: "component",
    observations: ["The billing service computes invoices nightly at 02:00 UTC with a cron trigger", "Invoice totals are stored in cents as integers, never floats"],
  },
  {
    name: "Search ranking",
    entityType: "component",
    observations: [
      "Search ranks entities with BM25F, k1 1.2 and b 0.75, times recency and priority",
      "Synonym expansion is on by default and can be turned off with SEARCH_EXPANSION=false",
    ],
  },
  {
    name: "Logging convention",
    entityType: "decision",
    observations: [
      "Logs are one JSON object per line with an event field; console.log is not allowed in src",
      "Client mistakes are logged at info level, server faults at error level",
    ],
  },
  {
    name: "Test strategy",
    entityType: "decision",
    observations: [
      "Tools are tested end to end through a real MCP client inside workerd with vitest",
      "Timed behaviour takes an injectable clock; tests never sleep on real timers",
    ],
  },
  {
    name: "Flaky e2e test in CI",
    entityType: "issue",
    observations: [
      "The OAuth end-to-end test timed out on CI because Chromium was missing; fixed by installing chromium in .ci/run",
      "When a browser test is flaky, check that the wrangler dev port is free first",
    ],
  },
  {
    name: "Bob Lindqvist",
    entityType: "person",
    observations: ["Bob maintains the web page and the consent screen", "Bob is on call the first week of every month"],
  },
  {
    name: "Consent page",
    entityType: "component",
    observations: [
      "The OAuth consent page asks for an eg_ token and shows the grants before Allow",
      "The consent page is server-rendered with Hono JSX; no client framework",
    ],
  },
  {
    name: "Token format",
    entityType: "fact",
    observations: [
      "API tokens are eg_ followed by 43 base64url characters; only their SHA-256 hash is stored",
      "Tokens are minted with npm run admin -- token create <name> --grant <context>=<role>",
    ],
  },
  {
    name: "Context naming rule",
    entityType: "fact",
    observations: ["Context names are lower-case letters, digits, dot, underscore and hyphen, at most 64 characters, starting with a letter or digit"],
  },
  {
    name: "Release checklist",
    entityType: "process",
    observations: [
      "Before a release: update CHANGELOG.md, bump the version in package.json, run npm test, tag vX.Y.Z",
      "Announce the release in the #engram channel with the changelog excerpt",
    ],
  },
  {
    name: "Backup procedure",
    entityType: "process",
    observations: [
      "Each context is exported nightly with npm run export to an R2 bucket named engram-backups",
      "Restore a context with npm run import from the JSONL export",
    ],
  },
  {
    name: "Frontend build",
    entityType: "component",
    observations: ["The web page's client code is bundled with esbuild by npm run build:ui into src/ui/client/dist", "The bundle must stay under 60 KB minified"],
  },
  {
    name: "Durable Object limits",
    entityType: "fact",
    observations: [
      "A Durable Object statement may bind at most 100 parameters and be at most 100 KB",
      "An isolate has 128 MB of memory; consume a SQL cursor before any await",
    ],
  },
  {
    name: "Import batching",
    entityType: "decision",
    observations: [
      "Imports send parts of at most 3 MB so a request stays under the 4 MB body limit",
      "A rejected line is reported with its line number and the rest still imports",
    ],
  },
  {
    name: "Carol Nguyen",
    entityType: "person",
    observations: ["Carol leads the search work and wrote the recall benchmark on LoCoMo", "Carol's goal for recall hit@5 is 70 percent"],
  },
  {
    name: "Recall benchmark",
    entityType: "process",
    observations: [
      "npm run bench:recall measures hit@1, hit@5 and MRR of search_nodes and recall on LoCoMo conversations",
      "The data lives in ../shared/locomo-dev and is never copied into the project",
    ],
  },
  {
    name: "CORS policy",
    entityType: "decision",
    observations: ["Only origins listed in ALLOWED_ORIGINS get CORS headers; a foreign Origin gets 403 before any token check"],
  },
  {
    name: "Open local mode",
    entityType: "fact",
    observations: ["Without ADMIN_TOKEN the server runs in open local mode: loopback requests need no token, other hosts get 403"],
  },
  {
    name: "Undo",
    entityType: "component",
    observations: ["undo reverts the caller's last change as a new change; history keeps at most HISTORY_MAX_CHANGES changes"],
  },
  {
    name: "Priority tiers",
    entityType: "component",
    observations: [
      "Items are ranked by priority from uses, recency and category; marked important items are never pruned",
      "Capacity pruning moves low-priority items to an archive that restore brings back",
    ],
  },
  { name: "Cloudflare account", entityType: "fact", observations: ["Production runs in the Cloudflare account of the platform team; the worker is named engram"] },
  {
    name: "Error handling layers",
    entityType: "decision",
    observations: [
      "Domain failures become tool results with isError true; protocol faults are JSON-RPC errors; anything unexpected is a generic 500 logged with context",
    ],
  },
  {
    name: "Semantic mode",
    entityType: "component",
    observations: ["With a Workers AI binding, search also matches by meaning using embeddings from the EMBEDDING_MODEL setting"],
  },
  { name: "Weekly sync", entityType: "event", observations: ["The team meets on Tuesdays at 15:00 CET to review open issues and the performance dashboard"] },
  { name: "Performance target", entityType: "decision", observations: ["Search p50 must stay under 20 ms end to end at 100,000 entities under wrangler dev"] },
];

/** Relations for create_relations. */
export const RELATIONS = [
  { from: "Alice Moreau", to: "Billing service", relationType: "owns" },
  { from: "Bob Lindqvist", to: "Consent page", relationType: "maintains" },
  { from: "Carol Nguyen", to: "Recall benchmark", relationType: "wrote" },
  { from: "Deploy pipeline", to: "Staging environment", relationType: "deploys to" },
];

/** Prompts the memory answers, each with the key of the item that answers it. */
export const RELEVANT = [
  { prompt: "How do we deploy to production?", key: "entity:Deploy pipeline" },
  { prompt: "how do I roll back a bad deploy", key: "entity:Deploy pipeline" },
  { prompt: "What's the staging environment and when is it deployed?", key: "entity:Staging environment" },
  { prompt: "can I edit an existing migration file to fix a typo?", key: "entity:Postgres migration policy" },
  { prompt: "what is the API rate limit per token", key: "entity:Rate limiter" },
  { prompt: "who owns billing and who should review my invoice change", key: "entity:Alice Moreau" },
  { prompt: "when are invoices computed", key: "entity:Billing service" },
  { prompt: "should I store invoice amounts as floats?", key: "entity:Billing service" },
  { prompt: "what are the BM25 parameters for search ranking", key: "entity:Search ranking" },
  { prompt: "how do I turn off synonym expansion", key: "entity:Search ranking" },
  { prompt: "can I use console.log for debugging output in src", key: "entity:Logging convention" },
  { prompt: "how should I test a tool end to end", key: "entity:Test strategy" },
  { prompt: "the oauth e2e test is timing out on CI again", key: "entity:Flaky e2e test in CI" },
  { prompt: "who is on call this week", key: "entity:Bob Lindqvist" },
  { prompt: "what does the consent page show before Allow", key: "entity:Consent page" },
  { prompt: "what format do API tokens have and how do I mint one", key: "entity:Token format" },
  { prompt: "what characters are allowed in a context name", key: "entity:Context naming rule" },
  { prompt: "what do I need to do before tagging a release", key: "entity:Release checklist" },
  { prompt: "how are contexts backed up and restored", key: "entity:Backup procedure" },
  { prompt: "how big may the web page bundle be", key: "entity:Frontend build" },
  { prompt: "how many parameters can a Durable Object SQL statement bind", key: "entity:Durable Object limits" },
  { prompt: "why does the import split files into parts", key: "entity:Import batching" },
  { prompt: "what's Carol's recall hit@5 goal", key: "entity:Carol Nguyen" },
  { prompt: "a request from another origin gets 403, why?", key: "entity:CORS policy" },
  { prompt: "do I need a token when running the server locally", key: "entity:Open local mode" },
  { prompt: "what is the search latency target at 100k entities", key: "entity:Performance target" },
];

/** Prompts that should bring nothing from memory. */
export const CHITCHAT = [
  "thanks, looks good",
  "ok",
  "great, continue",
  "yes please",
  "nice work!",
  "perfect, thank you so much",
  "go ahead",
  "sounds good to me",
  "hmm, let me think about it",
  "can you do that again but shorter?",
  "no, the other one",
  "lgtm, ship it",
  "what do you think?",
  "awesome",
  "please continue where you left off",
  "that's not what I meant",
  "good morning!",
  "try again",
  "cool, and then?",
  "makes sense",
  "hello there",
  "wait",
  "undo that last change please",
  "explain this in simpler words",
  "looks great, thanks a lot",
  "fix it",
];
