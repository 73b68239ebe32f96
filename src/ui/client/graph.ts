/**
 * A graph to draw: nodes with their role, edges from relations, and a
 * deterministic force-directed layout (d3-force). Pure (no DOM), so it is
 * tested on its own.
 *
 * ## Degrading
 * The search engine adds per-entity `score` and `role` ("entry" or
 * "connector") and top-level `paths`; an older engine answers only
 * `{entities, relations}`. Without roles every entity is an "other" match,
 * without paths no edge is highlighted: the picture stays correct, just
 * plainer. The whole-context picture (/api/contexts/<name>/graph) has no
 * roles either.
 *
 * ## Layout
 * d3-force, chosen by measurement among d3-force, cytoscape.js and elkjs
 * (docs/performance-history.md): links pull, nodes repel, and a collision
 * force keeps every node's label box apart, so labels do not pile up. The
 * coordinates are free (the view fits them to its frame and zooms); a
 * fixed start (d3's phyllotaxis, or where a node was before) and a fixed
 * number of ticks make the same graph always get the same picture.
 */
import { plural } from "../../mcp/format";
import { forceCollide, forceLink, forceManyBody, forceSimulation, forceX, forceY, type SimulationLinkDatum, type SimulationNodeDatum } from "d3-force";

type NodeRole = "entry" | "connector" | "other";

export interface GraphNode {
  id: string;
  entityType: string;
  role: NodeRole;
  score?: number;
  observations: number;
}

interface GraphEdge {
  from: string;
  to: string;
  relationType: string;
  /** On one of the result's paths between entry nodes. */
  onPath: boolean;
}

export interface SearchGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Whether the engine said which nodes are entries and connectors. */
  hasRoles: boolean;
}

interface SearchEntity {
  name: string;
  entityType: string;
  /** The observations (search results), or their count (the whole-context picture). */
  observations?: string[] | number;
  score?: number;
  role?: string;
}

interface SearchResult {
  entities?: SearchEntity[];
  relations?: { from: string; to: string; relationType: string }[];
  paths?: string[][];
}

const pairKey = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/** The graph of a search_nodes structuredContent: relations with both ends in the result become edges. */
export function graphOf(result: SearchResult): SearchGraph {
  const entities = result.entities ?? [];
  const hasRoles = entities.some((e) => e.role === "entry" || e.role === "connector");
  const nodes: GraphNode[] = [];
  const seen = new Set<string>();
  for (const e of entities) {
    if (seen.has(e.name)) continue;
    seen.add(e.name);
    const role: NodeRole = e.role === "entry" || e.role === "connector" ? e.role : "other";
    nodes.push({
      id: e.name,
      entityType: e.entityType,
      role,
      ...(typeof e.score === "number" ? { score: e.score } : {}),
      observations: typeof e.observations === "number" ? e.observations : (e.observations?.length ?? 0),
    });
  }
  const onPath = new Set<string>();
  for (const path of result.paths ?? []) {
    for (let i = 1; i < path.length; i++) {
      const a = path[i - 1];
      const b = path[i];
      if (a !== undefined && b !== undefined) onPath.add(pairKey(a, b));
    }
  }
  const edges: GraphEdge[] = [];
  for (const r of result.relations ?? []) {
    if (!seen.has(r.from) || !seen.has(r.to) || r.from === r.to) continue;
    edges.push({ from: r.from, to: r.to, relationType: r.relationType, onPath: onPath.has(pairKey(r.from, r.to)) });
  }
  return { nodes, edges, hasRoles };
}

/** The line over a search's picture: what was found for `query`, entry nodes when the engine ranks, relations and paths drawn. */
export function searchSummary(query: string, graph: SearchGraph, paths = 0): string {
  if (graph.nodes.length === 0) return `Nothing found for “${query}”.`;
  const entries = graph.hasRoles ? ` (${plural(graph.nodes.filter((x) => x.role === "entry").length, "entry node")})` : "";
  const drawn = paths > 0 ? `, ${plural(paths, "path")}` : "";
  return `${plural(graph.nodes.length, "entity", "entities")}${entries}, ${plural(graph.edges.length, "relation")}${drawn}.`;
}

/** `base` with the nodes and edges of `more` it lacks (a neighbourhood opened into the picture); base's nodes keep their roles. */
export function mergeGraphs(base: SearchGraph, more: SearchGraph): SearchGraph {
  const ids = new Set(base.nodes.map((n) => n.id));
  const edgeKey = (e: GraphEdge) => `${e.from}\u0000${e.to}\u0000${e.relationType}`;
  const edges = new Set(base.edges.map(edgeKey));
  return {
    nodes: [...base.nodes, ...more.nodes.filter((n) => !ids.has(n.id))],
    edges: [...base.edges, ...more.edges.filter((e) => !edges.has(edgeKey(e)))],
    hasRoles: base.hasRoles,
  };
}

export interface Point {
  x: number;
  y: number;
}

/** Characters of a label before it is cut with "…". */
export const LABEL_MAX = 22;
/** The label's estimated width in px at the view's 12 px font (the e2e test measures the real boxes). */
export const labelWidth = (id: string) => Math.min(id.length, LABEL_MAX) * 7.2 + 8;

export interface LayoutOptions {
  /** Where nodes were in an earlier picture: they start there, so expanding a neighbourhood keeps the picture steady. */
  previous?: ReadonlyMap<string, Point>;
  ticks?: number;
}

interface SimNode extends SimulationNodeDatum {
  id: string;
  radius: number;
}

/** Positions for every node id, in free coordinates around (0, 0). */
export function layout(graph: SearchGraph, options: LayoutOptions = {}): Map<string, Point> {
  const previous = options.previous ?? new Map<string, Point>();
  const nodes: SimNode[] = graph.nodes.map((node) => {
    const at = previous.get(node.id);
    return { id: node.id, radius: labelWidth(node.id) / 2 + 4, ...(at ? { x: at.x, y: at.y } : {}) };
  });
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // A node new to the picture starts next to a neighbour that was already placed, not across the frame.
  nodes.forEach((node, i) => {
    if (node.x !== undefined) return;
    const edge = graph.edges.find((e) => (e.from === node.id && byId.get(e.to)?.x !== undefined) || (e.to === node.id && byId.get(e.from)?.x !== undefined));
    const anchor = edge ? byId.get(edge.from === node.id ? edge.to : edge.from) : undefined;
    if (anchor?.x !== undefined && anchor.y !== undefined) {
      node.x = anchor.x + Math.cos(i) * 40;
      node.y = anchor.y + Math.sin(i) * 40;
    }
  });
  const links = graph.edges.map((e) => ({ source: e.from, target: e.to }));
  const simulation = forceSimulation(nodes)
    .force(
      "link",
      forceLink<SimNode, SimulationLinkDatum<SimNode>>(links)
        .id((d) => d.id)
        .distance(70),
    )
    .force("charge", forceManyBody().strength(-220))
    .force("collide", forceCollide<SimNode>((d) => d.radius).iterations(3))
    // Gentle pulls to the middle keep unconnected parts on screen; wider than high, like the frame.
    .force("x", forceX(0).strength(0.04))
    .force("y", forceY(0).strength(0.1))
    .stop();
  simulation.tick(options.ticks ?? 300);
  const positions = new Map<string, Point>();
  for (const n of nodes) positions.set(n.id, { x: Math.round(n.x ?? 0), y: Math.round(n.y ?? 0) });
  return positions;
}
