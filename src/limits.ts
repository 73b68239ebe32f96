/**
 * Every input limit the server enforces, in one place. Tool schemas and the
 * import endpoint quote these names; docs/architecture.md#limits tables them.
 */
export const LIMITS = {
  /** Characters in an entity name. */
  entityName: 256,
  /** Characters in an entity type or relation type. */
  entityType: 128,
  /** Bytes (UTF-8) in one observation. */
  observationBytes: 16 * 1024,
  /** Items in one batch (entities, relations, observations, names). */
  batchItems: 1000,
  /** Bytes in one HTTP request body (MCP and API). */
  requestBodyBytes: 4 * 1024 * 1024,
  /** Characters in a search query. */
  queryChars: 2000,
  /** Entities read_graph returns in one page when no limit is given. */
  readGraphPageEntities: 2000,
  /** Approximate bytes of one read_graph page before it is cut short. */
  readGraphPageBytes: 200 * 1024,
  /** Characters in a memory context name. */
  contextName: 64,
  /** Characters in a context's description. */
  contextDescription: 500,
  /** Bytes (UTF-8) in one working-memory document. */
  documentBytes: 256 * 1024,
  /** Characters in a document id. */
  documentId: 128,
  /** Distinct [[links]] in one document. */
  documentLinks: 1000,
  /** Results search_documents returns at most. */
  documentSearchResults: 100,
  /** Characters in a file path (files toolset). */
  filePath: 512,
  /** Bytes (UTF-8) in one file. */
  fileBytes: 1024 * 1024,
  /** Characters in a session key header (Mcp-Memory-Session, Mcp-Session-Id). */
  sessionKey: 256,
  /** URIs one MCP session may subscribe to in one context (resources/subscribe), or one subscriptions/listen may name. */
  subscriptionsPerSession: 100,
  /** Subscriptions one caller holds in one context across its sessions and listen streams (a token and the OAuth grants it consented to are one caller). */
  subscriptionsPerCaller: 500,
  /** Characters of file or directory text one view returns before it is cut short (use view_range for the rest). */
  viewChars: 16 * 1024,
  /** Changes an as-of read replays backwards at most (src/graph/rewind.ts); an older asOf is refused. */
  asOfChanges: 5000,
  /** Characters of inverse JSON those changes may hold in all, so one as-of read stays bounded in time and memory. */
  asOfChars: 16 * 1024 * 1024,
} as const;

/** The ranges both the search settings (src/settings.ts) and the search_nodes arguments accept. */
export const SEARCH_RANGES = {
  minRelativeScore: { min: 0, max: 1 },
  topPerToken: { min: 1, max: 20 },
  maxPathLength: { min: 0, max: 10 },
  maxTotalNodes: { min: 1, max: 200 },
} as const;

/** recall's token budget (src/search/recall.ts), counted as the token-economy limits count (characters / 4). */
export const RECALL_TOKENS = { default: 1500, min: 50, max: 20_000 } as const;

/** A context name's shape, at most LIMITS.contextName characters. */
const CONTEXT_NAME_SHAPE = `[a-z0-9][a-z0-9._-]{0,${LIMITS.contextName - 1}}`;

/** A context name: lower-case letters, digits, '.', '_' and '-', starting with a letter or digit. */
export const CONTEXT_NAME_PATTERN = new RegExp(`^${CONTEXT_NAME_SHAPE}$`);

/** The rule in words, for every message that rejects a context name: `${what} ${CONTEXT_NAME_RULE}`. */
export const CONTEXT_NAME_RULE = `must match ${CONTEXT_NAME_SHAPE}: lower-case letters, digits, '.', '_' and '-', starting with a letter or digit`;

/** The message of a request that names an invalid context (the URL's or the body's). */
export const INVALID_CONTEXT_NAME = `Context names ${CONTEXT_NAME_RULE}.`;

export const DEFAULT_CONTEXT = "default";
