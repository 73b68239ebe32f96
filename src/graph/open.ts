/**
 * open_nodes as one call. In reads of now, a name merged into another entity
 * opens that entity (./aliases.ts); with asOf or includeSuperseded the
 * entities are read as they stood then (./asof.ts), names as they were then.
 * Every entity returned counts as opened, except one deleted since the time
 * an as-of read looked at. With `provenance`, each entity also lists who
 * wrote each of its current observations and when (./provenance.ts): a read
 * of now only, with or without includeSuperseded (superseded texts carry
 * their own times and no writer).
 */
import { DomainError } from "../errors";
import { accessed, itemKey, type WithEffects } from "../items";
import type { Db } from "../storage/sql";
import { existing, openNodesAt, parseAsOf, type EntityAt } from "./asof";
import { openByAlias } from "./aliases";
import { observationProvenance, type Provenance } from "./provenance";
import { openNodes as openNow, OPEN_NODES_MAX_RELATIONS } from "./store";
import type { Relation } from "./types";

export interface OpenOptions {
  asOf?: string | number;
  includeSuperseded?: boolean;
  provenance?: boolean;
}

export interface OpenedNodes {
  entities: (EntityAt & { provenance?: Provenance[] })[];
  relations: Relation[];
  notFound: string[];
  relationsTruncated: boolean;
  /** Each name asked for that is an alias, with the entity it opened (alias → entity). */
  aliases: Record<string, string>;
}

export function openNodes(db: Db, names: readonly string[], now: number, opts: OpenOptions): WithEffects<OpenedNodes> {
  const past = opts.asOf !== undefined || opts.includeSuperseded === true;
  if (opts.asOf !== undefined && opts.provenance) {
    throw new DomainError("Invalid", "provenance shows who wrote the current observations; leave out asOf to get it.");
  }
  const { names: resolved, aliases }: { names: readonly string[]; aliases: Record<string, string> } =
    opts.asOf === undefined ? openByAlias(db, names) : { names, aliases: {} };
  const at = opts.asOf === undefined ? now : parseAsOf(opts.asOf, now);
  const read = past ? openNodesAt(db, resolved, at, opts.includeSuperseded === true, OPEN_NODES_MAX_RELATIONS) : openNow(db, resolved);
  const opened = read.entities.map((e) => e.name);
  const entities = opts.provenance ? read.entities.map((e) => ({ ...e, provenance: observationProvenance(db, e.name) })) : read.entities;
  return {
    value: { ...read, entities, aliases },
    effects: accessed((past ? existing(db, opened) : opened).map(itemKey.entity), "open"),
  };
}
