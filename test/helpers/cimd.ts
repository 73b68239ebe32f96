/**
 * Client ID metadata documents for the workers tests. vitest.config.ts's
 * outbound service answers a fetch of `cimdClientId(name)` with the document
 * `cimdDocument` builds (every other outbound fetch gets a 502), so a test can
 * present a client whose published `client_name` is anything, without a network.
 */

/** A public name (src/auth/hosts.ts) that only the outbound service answers for. */
const CIMD_ORIGIN = "https://cimd.engram-tests.example.org";
const CIMD_PATH = "/client.json";

/** The one redirect URI every document lists. */
export const CIMD_REDIRECT = `${CIMD_ORIGIN}/cb`;

/** A client ID whose metadata document names the client `name`. */
export const cimdClientId = (name: string) => `${CIMD_ORIGIN}${CIMD_PATH}?${new URLSearchParams({ name })}`;

/** The metadata document for a fetch of `url`, or undefined when `url` is not a `cimdClientId`. Never cached, so each test sees its own. */
export function cimdDocument(url: string): Response | undefined {
  const at = new URL(url);
  if (at.origin !== CIMD_ORIGIN || at.pathname !== CIMD_PATH) return undefined;
  const document = { client_id: url, client_name: at.searchParams.get("name"), redirect_uris: [CIMD_REDIRECT], token_endpoint_auth_method: "none" };
  return Response.json(document, { headers: { "Cache-Control": "no-store" } });
}
