/** @jsxImportSource hono/jsx */
/**
 * The consent page's markup (the route is ./consent.tsx): the web page's
 * look (its stylesheet, no script), everything the client chose escaped by
 * JSX, and the CSP that lets the form post here and follow the redirect to
 * the client.
 */
import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import type { FC } from "hono/jsx";
import { ROLES, type Grant, type Role } from "../auth/grants";
import { UI_ASSETS, UI_CSP } from "./routes";

/** A CSP source expression for an http(s) origin: `scheme://host[:port]`. Nothing else is ever emitted. */
const SOURCE = /^https?:\/\/(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** Where the redirect to `redirectUri` goes, as a CSP source, or undefined when it cannot be written as one safely. */
function redirectSource(redirectUri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return undefined;
  }
  return SOURCE.test(url.origin) ? url.origin : undefined;
}

/** The web page's CSP with the form allowed to post here and to follow the redirect to `redirectUri`'s origin. */
export function consentCsp(redirectUri?: string): string {
  const target = redirectUri === undefined ? undefined : redirectSource(redirectUri);
  const formAction = ["'self'", ...(target ? [target] : [])].join(" ");
  return UI_CSP.replace("form-action 'none'", `form-action ${formAction}`);
}

const Page: FC<{ title: string; children?: unknown }> = ({ title, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="color-scheme" content="light dark" />
      <title>{title}</title>
      <link rel="icon" href="data:," />
      <link rel="stylesheet" href={UI_ASSETS.style} />
    </head>
    <body>
      <header class="bar">
        <h1>engram</h1>
      </header>
      <main class="signin-help consent">{children}</main>
    </body>
  </html>
);

interface FormProps {
  details: ConsentDescription;
  handle: string;
  /** The grants offered: the consenter's when known (open local mode), else an explanation. */
  offered?: readonly Grant[];
  askToken: boolean;
  error?: string;
  /** The token just pasted, kept in its field while the grants are reviewed (the page is never cached). */
  token?: string;
}

const roleOptions = (max: Role) => ROLES.slice(0, ROLES.indexOf(max) + 1);

/** What a glob in the Context box means, said where it is shown. */
function globHint(pattern: string): string {
  const narrow = "Type one context name instead to allow only that context.";
  if (pattern === "*") return `* means every context this token may use, including ones created later. ${narrow}`;
  return `* stands for any characters: ${pattern} means every context whose name fits it, including ones created later. ${narrow}`;
}

const GrantRows: FC<{ grants: readonly Grant[] }> = ({ grants }) => (
  <table>
    <thead>
      <tr>
        <th scope="col">Keep</th>
        <th scope="col">Context</th>
        <th scope="col">Role</th>
      </tr>
    </thead>
    <tbody>
      {grants.map((g, i) => (
        <tr>
          <td>
            <input type="checkbox" name="grant" value={String(i)} checked aria-label={`Keep the grant on ${g.context}`} />
          </td>
          <td>
            <input
              name={`context-${i}`}
              value={g.context}
              aria-label={`Context (${g.context}, or one name it matches)`}
              spellcheck={false}
              {...(g.context.includes("*") ? { "aria-describedby": `context-hint-${i}` } : {})}
            />
            {g.context.includes("*") ? (
              <span id={`context-hint-${i}`} class="hint glob">
                {globHint(g.context)}
              </span>
            ) : null}
          </td>
          <td>
            <select name={`role-${i}`} aria-label={`Role on ${g.context}`}>
              {roleOptions(g.role).map((r) => (
                <option value={r} selected={r === g.role}>
                  {r}
                </option>
              ))}
            </select>
          </td>
        </tr>
      ))}
    </tbody>
  </table>
);

export const ConsentForm: FC<FormProps> = ({ details, handle, offered, askToken, error, token }) => (
  <Page title={`Connect ${details.clientName} to engram?`}>
    <h2>Connect {details.clientName} to engram?</h2>
    <p>
      <strong>{details.clientName}</strong> asks to use this memory server's MCP endpoint for you. The access will be sent to <strong>{details.redirectHost}</strong>
      .{" "}
      {details.clientDomain ? (
        <span>
          Published by <strong>{details.clientDomain}</strong>.
        </span>
      ) : (
        <span>This app registered itself; its name is not verified.</span>
      )}
    </p>
    {details.redirectIsLoopback ? (
      <p>
        <strong>This sends access to an app on your computer.</strong> Continue only if you just started connecting from it.
      </p>
    ) : null}
    {error ? (
      <p class="alert" role="alert">
        {error}
      </p>
    ) : null}
    <form method="post">
      <input type="hidden" name="handle" value={handle} />
      {askToken ? (
        <p>
          <label for="token">Token</label>{" "}
          <input
            id="token"
            name="token"
            type="password"
            autocomplete="off"
            spellcheck={false}
            required
            aria-describedby="token-hint"
            {...(token ? { value: token } : {})}
          />{" "}
          <span id="token-hint" class="hint">
            Your engram API token, or the server's ADMIN_TOKEN. The app gets at most what this token may do; the token itself is not shared.
          </span>
        </p>
      ) : (
        <p class="hint">Open local mode: no token is needed; you consent as the local administrator.</p>
      )}
      <h3>What {details.clientName} may do</h3>
      {offered ? (
        <GrantRows grants={offered} />
      ) : (
        <p class="hint">
          What the token you paste may do: its contexts and roles. Press Continue to see them; you can then keep fewer, lower a role or limit a pattern to one
          context before you allow.
        </p>
      )}
      {offered ? <input type="hidden" name="rows" value={String(offered.length)} /> : null}
      <p class="row">
        {offered ? (
          <button type="submit" name="decision" value="allow">
            Allow
          </button>
        ) : (
          <button type="submit" name="decision" value="review">
            Continue
          </button>
        )}
        <button type="submit" name="decision" value="deny" formnovalidate>
          Deny
        </button>
      </p>
    </form>
  </Page>
);

export const ErrorPage: FC<{ message: string }> = ({ message }) => (
  <Page title="engram: authorization failed">
    <h2>This authorization cannot go on</h2>
    <p class="alert" role="alert">
      {message}
    </p>
    <p>Start connecting again from the app.</p>
  </Page>
);
