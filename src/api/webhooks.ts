/**
 * Webhooks of a context, administrators only (src/history/webhooks.ts says
 * what a webhook holds, src/context/webhooks.ts how changes are sent):
 *
 *   POST   /api/contexts/:name/webhooks       {url, secret} -> 201 {id}
 *   GET    /api/contexts/:name/webhooks       -> {webhooks: [...]}: delivery state, never the secret
 *   DELETE /api/contexts/:name/webhooks/:id   -> {removed: id}
 *
 * A URL is https to a public host, or http to a loopback host (local use), and holds none
 * of the characters names may not hold (src/text.ts), since the list and
 * the web page show it as sent; the secret is
 * WEBHOOK_SECRET_MIN to WEBHOOK_SECRET_MAX characters.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app";
import { isPublicHost } from "../auth/hosts";
import { fail } from "../errors";
import { shownAsSent } from "../mcp/schemas";
import { failed, readBody, requireAdmin, requireContext } from "./http";

const WEBHOOK_SECRET_MIN = 16;
const WEBHOOK_SECRET_MAX = 256;
const URL_MAX = 2048;

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Whether `text` is a URL a webhook may be sent to: https to a public host, or http to a loopback host; no credentials in it. */
function acceptedUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  if (url.username !== "" || url.password !== "") return false;
  // https goes to the public internet only, as a client's metadata does (src/auth/hosts.ts): a private or link-local
  // address (169.254.169.254, 10.x, ::ffff:127.0.0.1, 0.0.0.0) would let a webhook reach inside the network.
  return (url.protocol === "https:" && isPublicHost(url.hostname)) || (url.protocol === "http:" && LOOPBACK.test(url.hostname));
}

const NewWebhook = z.object({
  url: z
    .string({ error: "url must be a string" })
    .max(URL_MAX, `url must be at most ${URL_MAX} characters`)
    .refine(acceptedUrl, "url must be an https URL on a public host (or http to localhost, 127.0.0.1 or [::1]), without credentials")
    // The URL parser drops tabs and line breaks and keeps a bidirectional override, but the list shows the text as sent.
    .superRefine(shownAsSent("url")),
  secret: z
    .string({ error: "secret must be a string" })
    .min(WEBHOOK_SECRET_MIN, `secret must be at least ${WEBHOOK_SECRET_MIN} characters`)
    .max(WEBHOOK_SECRET_MAX, `secret must be at most ${WEBHOOK_SECRET_MAX} characters`),
});

export const webhooks = new Hono<AppEnv>();

webhooks.use("*", requireAdmin, requireContext("read"));

webhooks.post("/", async (c) => {
  const body = await readBody(c, NewWebhook);
  if (!body.ok) return body.response;
  const name = c.req.param("name") as string;
  const added = await c.env.MEMORY.getByName(name).addWebhook(name, body.value.url, body.value.secret);
  if (!added.ok) return failed(c, added);
  return c.json(added.value, 201);
});

webhooks.get("/", async (c) => {
  const listed = await c.env.MEMORY.getByName(c.req.param("name") as string).listWebhooks();
  if (!listed.ok) return failed(c, listed);
  return c.json({ webhooks: listed.value });
});

webhooks.delete("/:id", async (c) => {
  const id = c.req.param("id");
  const removed = await c.env.MEMORY.getByName(c.req.param("name") as string).removeWebhook(id);
  if (!removed.ok) return failed(c, removed);
  if (!removed.value.removed) return failed(c, fail("NotFound", `No webhook ${JSON.stringify(id)} in this context; GET the webhooks to list them.`));
  return c.json({ removed: id });
});
