import type { Category } from "../items";

/** The knowledge graph's wire shapes, identical to @modelcontextprotocol/server-memory's. */
export interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

/**
 * An entity to create: the official shape, plus an optional category
 * (create_entities, import) and importance mark (import); neither is echoed
 * back in the official output.
 */
export interface EntityInput extends Entity {
  category?: Category;
  important?: boolean;
  /** Names of entities merged into this one (an import of engram's export; src/graph/aliases.ts). */
  aliases?: string[];
}

export interface Relation {
  from: string;
  to: string;
  relationType: string;
}

export interface KnowledgeGraph {
  entities: Entity[];
  relations: Relation[];
}

export interface ObservationAdd {
  entityName: string;
  contents: string[];
}

export interface ObservationDelete {
  entityName: string;
  observations: string[];
}

/** A read_graph page: the official shape plus paging fields. */
export interface GraphPage {
  entities: (Entity | { name: string; entityType: string })[];
  relations: Relation[];
  nextCursor?: string;
  note?: string;
}

export interface DeleteReport {
  success: boolean;
  message: string;
}
