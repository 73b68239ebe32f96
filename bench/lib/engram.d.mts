/** Types for the part of engram.mjs its test uses (test/e2e/bench-client.e2e.ts). */

/** fetch with a signal of its own per request, following `init.signal` until the response body is read, failed or cancelled. */
export function fetchOwnSignal(url: string | URL, init?: RequestInit): Promise<Response>;
