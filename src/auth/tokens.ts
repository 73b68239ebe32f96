/**
 * API token material. A token is `eg_` + 32 random bytes in base64url (256
 * bits); only its SHA-256 hash is ever stored, so the Registry cannot give a
 * token back and a leaked database does not leak credentials.
 */
import { TOKEN_ID_PREFIX } from "../registry/tokens";
import { sha256, toHex } from "./secrets";

const TOKEN_PREFIX = "eg_";
const TOKEN_BYTES = 32;

/** A well-formed token: the prefix and 43 base64url characters. */
export const TOKEN_SHAPE = /^eg_[A-Za-z0-9_-]{43}$/;

function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The hex SHA-256 of a token: the only form the Registry stores and looks up. */
export const tokenHash = async (token: string): Promise<string> => toHex(await sha256(token));

/** A fresh token, its hash, and a public id to list and revoke it by. */
export async function mintToken(): Promise<{ token: string; hash: string; id: string }> {
  const token = TOKEN_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES)));
  const id = `${TOKEN_ID_PREFIX}${toHex(crypto.getRandomValues(new Uint8Array(8)))}`;
  return { token, hash: await tokenHash(token), id };
}
