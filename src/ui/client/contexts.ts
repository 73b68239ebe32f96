/**
 * Which contexts the page offers, from list_contexts: the registered ones
 * the visitor has a grant for, and the one calls go to by default when it
 * is not registered yet (a fresh server's "default"), with the role the
 * visitor's grants give there. Pure (no DOM).
 */
import { globMatches } from "../../auth/grants";

export type Role = "read" | "write" | "admin";

export interface ContextChoice {
  name: string;
  description: string;
  readOnly: boolean;
  role: Role;
}

export interface Listed {
  contexts: ContextChoice[];
  current: string;
  grants: { context: string; role: Role }[];
}

const RANK: Record<Role, number> = { read: 0, write: 1, admin: 2 };

/** The highest role the grants give on `name`, as the server decides it (src/auth/grants.ts). */
export function roleFor(grants: Listed["grants"], name: string): Role | undefined {
  let best: Role | undefined;
  for (const g of grants) if (globMatches(g.context, name) && (best === undefined || RANK[g.role] > RANK[best])) best = g.role;
  return best;
}

/** The contexts to offer, and which to pick first: the one remembered for this tab, else the default one, else the first. */
export function contextChoices(listed: Listed, remembered: string | null): { choices: ContextChoice[]; first: ContextChoice | undefined } {
  const choices = [...listed.contexts];
  const role = roleFor(listed.grants, listed.current);
  if (role !== undefined && !choices.some((choice) => choice.name === listed.current)) {
    choices.unshift({ name: listed.current, description: "", readOnly: false, role });
  }
  const first = choices.find((choice) => choice.name === remembered) ?? choices.find((choice) => choice.name === listed.current) ?? choices[0];
  return { choices, first };
}
