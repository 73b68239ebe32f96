// Settings that are secrets or optional, so `wrangler types` cannot see them in wrangler.toml.
interface Env {
  /** The administrator's bearer token (`wrangler secret put ADMIN_TOKEN`), or "sha256:<hex>" of it. */
  ADMIN_TOKEN?: string;
  /** Extra browser origins allowed to call the server, comma-separated (e.g. "https://app.example.com"). */
  ALLOWED_ORIGINS?: string;
  /** Seconds a Worker isolate caches an API token lookup (0-60, default 30): how long a revocation may take. */
  TOKEN_CACHE_SECONDS?: string;
  /** Workers AI (`[ai] binding = "AI"` in wrangler.toml): with it contexts also search by meaning (docs/search.md#semantic-mode-the-ai-binding). */
  AI?: Ai;
  /** The Workers AI embedding model (default in src/settings.ts). */
  EMBEDDING_MODEL?: string;
}
