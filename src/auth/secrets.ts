/** Hashing and constant-time comparison of bearer secrets. */
const encoder = new TextEncoder();

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

export const toHex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

export function fromHex(hex: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-f]{2})+$/i.test(hex)) return undefined;
  return new Uint8Array(hex.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
}

/**
 * Whether `presented` is the secret `configured` (plain text, or "sha256:<hex>"
 * of it). Both sides are hashed to equal length first, so the comparison
 * time reveals nothing about the secret.
 */
export async function secretMatches(presented: string, configured: string): Promise<boolean> {
  const expected = configured.startsWith("sha256:") ? fromHex(configured.slice(7)) : await sha256(configured);
  if (expected?.length !== 32) return false;
  const actual = await sha256(presented);
  return crypto.subtle.timingSafeEqual(actual, expected);
}
