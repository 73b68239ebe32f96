/**
 * How the graph's inverse ops are undone and described (registered with
 * history in MemoryContext). Each applier replays through the recorded
 * writes in writes.ts, so an undo is itself a change that can be undone.
 *
 * An op whose target is already in the wanted state does nothing. An op that
 * cannot be applied (restoring an observation on an entity that no longer
 * exists) throws a Conflict, which rolls the whole undo back.
 */
import { itemKey } from "../items";
import { DomainError } from "../errors";
import type { InverseKind, InverseKinds, Phrase } from "../history";
import { idsByName, relationLabel } from "./rows";
import type { EntityOp, GraphOp, ObservationOp, RelationOp, SupersededOp } from "./writes";
import {
  deleteEntityRow,
  deleteObservation,
  deleteRelation,
  deleteSuperseded,
  insertEntity,
  insertObservation,
  insertRelation,
  insertSuperseded,
  touchEntity,
} from "./writes";

const conflict = (message: string) => new DomainError("Conflict", `${message}; nothing was undone.`);

const entity: InverseKind<EntityOp> = {
  apply(w, op) {
    const id = idsByName(w.db, [op.name]).get(op.name);
    if (op.prior === null) {
      if (id === undefined) return;
      deleteEntityRow(w, id);
      // As delete_entities does: a re-created entity of that name must not inherit these associations.
      w.items.removed([itemKey.entity(op.name)]);
      return;
    }
    if (id !== undefined) throw conflict(`entity "${op.name}" exists again, so its deletion cannot be undone`);
    insertEntity(w, op.name, op.prior.entityType, op.prior);
  },
  describe: (op): Phrase => {
    return { action: op.prior === null ? "+" : "-", noun: "entity", name: op.name };
  },
};

const observation: InverseKind<ObservationOp> = {
  apply(w, op) {
    const id = idsByName(w.db, [op.entity]).get(op.entity);
    if (op.prior === null) {
      if (id !== undefined && deleteObservation(w, id, op.entity, op.content)) touchEntity(w, id);
      return;
    }
    if (id === undefined) throw conflict(`entity "${op.entity}" no longer exists, so its observation cannot be restored`);
    if (insertObservation(w, id, op.entity, op.content, { prior: op.prior })) touchEntity(w, id);
  },
  describe: (op): Phrase => {
    return { action: op.prior === null ? "+" : "-", noun: "obs", name: op.entity };
  },
};

const relation: InverseKind<RelationOp> = {
  apply(w, op) {
    const ids = idsByName(w.db, [op.from, op.to]);
    const from = ids.get(op.from);
    const to = ids.get(op.to);
    if (op.prior === null) {
      if (from !== undefined && to !== undefined) deleteRelation(w, from, to, op);
      return;
    }
    if (from === undefined || to === undefined) {
      const missing = [op.from, op.to].filter((n) => !ids.has(n)).map((n) => JSON.stringify(n));
      throw conflict(`relation ${relationLabel(op)} cannot be restored: no entity ${missing.join(", ")}`);
    }
    insertRelation(w, from, to, op, op.prior);
  },
  describe: (op): Phrase => {
    return { action: op.prior === null ? "+" : "-", noun: "rel", name: relationLabel(op) };
  },
};

const superseded: InverseKind<SupersededOp> = {
  apply(w, op) {
    if (op.prior === null) {
      deleteSuperseded(w, op.entity, op.id);
      return;
    }
    const id = idsByName(w.db, [op.entity]).get(op.entity);
    if (id === undefined) throw conflict(`entity "${op.entity}" no longer exists, so its superseded observation cannot be restored`);
    insertSuperseded(w, id, op.entity, { id: op.id, content: op.content, ...op.prior });
  },
  // "~obs": an observation superseded (update_observation); "-superseded": a superseded one deleted with its entity.
  describe: (op): Phrase => (op.prior === null ? { action: "~", noun: "obs", name: op.entity } : { action: "-", noun: "superseded", name: op.entity }),
};

/** Registration order is the order summaries list them in. */
export const graphInverses: InverseKinds<GraphOp> = { entity, observation, relation, superseded };
