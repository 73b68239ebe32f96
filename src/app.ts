/**
 * The Worker's Hono environment: its bindings and what the guard in
 * src/index.ts sets on every request. Routes (src/api, src/ui) type their
 * handlers with it without importing the entry point.
 */
import type { Caller } from "./auth/caller";

export type AppEnv = { Bindings: Env; Variables: { caller: Caller } };
