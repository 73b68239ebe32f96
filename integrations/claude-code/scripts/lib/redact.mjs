/**
 * Secret redaction for what a capture writes: every match of SECRET_PATTERNS
 * becomes `[REDACTED]` (for key=value and URL passwords, only the value),
 * and so does the caller's own token wherever it appears.
 */

const R = "[REDACTED]";

/** [pattern, replacement]; the order matters where one secret contains another's shape. */
export const SECRET_PATTERNS = [
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, R],
  [/\beg_[A-Za-z0-9_-]{20,}/g, R],
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, `$1 ${R}`],
  [/\b(sk|pk|rk)[-_](?:live|test|proj|ant|or)?[-_]?[A-Za-z0-9_-]{16,}/g, R],
  [/\bAKIA[0-9A-Z]{16}\b/g, R],
  [/\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}\b/g, R],
  [/\bgithub_pat_[A-Za-z0-9_]{30,}\b/g, R],
  [/\bglpat-[A-Za-z0-9_-]{16,}\b/g, R],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g, R],
  [/\bAIza[0-9A-Za-z_-]{30,}\b/g, R],
  [/\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, R],
  // user:password@ in a URL: only the password goes.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi, `$1:${R}@`],
  // password=..., "api_key": "...", SECRET: ... (the value up to a quote, space, comma or &).
  [
    /\b([A-Za-z0-9_]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|client[_-]?secret)[A-Za-z0-9_]*)(["']?\s*[:=]\s*["']?)([^\s"',&]{4,})/gi,
    `$1$2${R}`,
  ],
];

/** `text` with every secret SECRET_PATTERNS finds, and `token`, replaced. */
export function redact(text, token) {
  let out = String(text);
  if (token) out = out.split(token).join(R);
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
