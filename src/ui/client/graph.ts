/**
 * The search result as a graph to draw: nodes with their role, edges from
 * relations, and a deterministic force-directed layout. Pure (no DOM), so
 * it is tested on its own.
 *
 * ## Degrading
 * The search engine adds per-entity `score` and `role` ("entry" or
 * "connector") and top-level `paths`; an older engine answers only
 * `{entities, relations}`. Without roles every entity is an "other" match,
 * without paths no edge is highlighted: the picture stays correct, just
 * plainer.
 *
 * ## Layout
 * Fruchterman-Reingold with a fixed start (entries on an inner ring, the
 * rest on an outer one, in result order) and a fixed number of cooling
 * steps: the same result always gets the same picture, and tests can check
 * it. O(n² × steps) with n <= 200 (search_nodes' cap) is a few milliseconds.
 */
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
  observations?: string[];
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
      observations: e.observations?.length ?? 0,
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

export interface Point {
  x: number;
  y: number;
}

export interface LayoutOptions {
  width: number;
  height: number;
  /** Kept free at the edges, for labels. */
  margin?: number;
  steps?: number;
}

/** Positions for every node id, inside [margin, width - margin] × [margin, height - margin]. */
export function layout(graph: SearchGraph, options: LayoutOptions): Map<string, Point> {
  const { width, height } = options;
  const margin = options.margin ?? 40;
  const steps = options.steps ?? 300;
  const n = graph.nodes.length;
  const positions = new Map<string, Point>();
  if (n === 0) return positions;
  const cx = width / 2;
  const cy = height / 2;
  const innerW = Math.max(1, width - 2 * margin);
  const innerH = Math.max(1, height - 2 * margin);
  if (n === 1) {
    positions.set(graph.nodes[0]?.id ?? "", { x: cx, y: cy });
    return positions;
  }

  const index = new Map(graph.nodes.map((node, i) => [node.id, i]));
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  // Entries start on an inner ring when there are others to surround them; else everyone shares one ring.
  const entries = graph.nodes.filter((node) => node.role === "entry").length;
  const inner = entries < n ? entries : 0;
  const outer = n - inner;
  let iInner = 0;
  let iOuter = 0;
  graph.nodes.forEach((node, i) => {
    const isInner = inner > 0 && node.role === "entry";
    const k = isInner ? iInner++ : iOuter++;
    const count = isInner ? inner : outer;
    const radius = isInner ? 0.2 : 0.42;
    // A half-step offset on the outer ring keeps its nodes off the inner ring's spokes.
    const angle = (2 * Math.PI * (k + (isInner ? 0 : 0.5))) / Math.max(1, count);
    xs[i] = cx + Math.cos(angle) * innerW * radius;
    ys[i] = cy + Math.sin(angle) * innerH * radius;
  });

  const edges = graph.edges.flatMap((e) => {
    const a = index.get(e.from);
    const b = index.get(e.to);
    return a === undefined || b === undefined ? [] : [[a, b] as const];
  });
  const area = innerW * innerH;
  const k = Math.sqrt(area / n);
  const dx = new Float64Array(n);
  const dy = new Float64Array(n);
  let temperature = Math.min(innerW, innerH) / 8;
  const cooling = temperature / (steps + 1);

  for (let step = 0; step < steps; step++) {
    dx.fill(0);
    dy.fill(0);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        let ex = (xs[i] ?? 0) - (xs[j] ?? 0);
        let ey = (ys[i] ?? 0) - (ys[j] ?? 0);
        let d = Math.hypot(ex, ey);
        if (d < 0.01) {
          // Coincident nodes: push apart along a direction fixed by their indices.
          ex = Math.cos(i + j);
          ey = Math.sin(i + j);
          d = 0.01;
        }
        const force = (k * k) / d;
        const fx = (ex / d) * force;
        const fy = (ey / d) * force;
        dx[i] = (dx[i] ?? 0) + fx;
        dy[i] = (dy[i] ?? 0) + fy;
        dx[j] = (dx[j] ?? 0) - fx;
        dy[j] = (dy[j] ?? 0) - fy;
      }
    }
    for (const [a, b] of edges) {
      const ex = (xs[a] ?? 0) - (xs[b] ?? 0);
      const ey = (ys[a] ?? 0) - (ys[b] ?? 0);
      const d = Math.max(0.01, Math.hypot(ex, ey));
      const force = (d * d) / k;
      const fx = (ex / d) * force;
      const fy = (ey / d) * force;
      dx[a] = (dx[a] ?? 0) - fx;
      dy[a] = (dy[a] ?? 0) - fy;
      dx[b] = (dx[b] ?? 0) + fx;
      dy[b] = (dy[b] ?? 0) + fy;
    }
    for (let i = 0; i < n; i++) {
      // A little gravity keeps unconnected parts of the result on screen.
      const gx = (dx[i] ?? 0) + (cx - (xs[i] ?? 0)) * 0.05 * (k / 10);
      const gy = (dy[i] ?? 0) + (cy - (ys[i] ?? 0)) * 0.05 * (k / 10);
      const d = Math.max(0.01, Math.hypot(gx, gy));
      const move = Math.min(d, temperature);
      xs[i] = Math.min(width - margin, Math.max(margin, (xs[i] ?? 0) + (gx / d) * move));
      ys[i] = Math.min(height - margin, Math.max(margin, (ys[i] ?? 0) + (gy / d) * move));
    }
    temperature -= cooling;
  }
  graph.nodes.forEach((node, i) => {
    positions.set(node.id, { x: Math.round(xs[i] ?? cx), y: Math.round(ys[i] ?? cy) });
  });
  return positions;
}
