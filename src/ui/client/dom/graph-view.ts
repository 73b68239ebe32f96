/**
 * Draws a search result graph (../graph.ts) as inline SVG.
 *
 * Keyboard: the graph is one tab stop (roving tabindex); arrow keys move
 * between nodes in result order, Home/End jump, Enter or Space opens the
 * node. Every node has an accessible name saying what it is; the same
 * results are also listed as buttons under the graph.
 */
import { layout, type GraphNode, type SearchGraph } from "../graph";
import { s } from "./dom";

const HEIGHT = 420;
const LABEL_MAX = 22;
/** Past this many edges, relation names would cover the picture: they stay in tooltips. */
const EDGE_LABELS_MAX = 40;

const RADIUS: Record<GraphNode["role"], number> = { entry: 13, connector: 9, other: 9 };

const short = (text: string) => (text.length > LABEL_MAX ? `${text.slice(0, LABEL_MAX - 1)}…` : text);

export function nodeLabel(node: GraphNode): string {
  const role = node.role === "entry" ? "entry node" : node.role === "connector" ? "connector" : "match";
  const score = node.score !== undefined ? `, score ${node.score}` : "";
  return `${node.id} (${node.entityType}), ${role}${score}, ${node.observations} observations`;
}

function shape(node: GraphNode): SVGElement {
  const r = RADIUS[node.role];
  if (node.role === "connector") {
    return s("rect", { x: -r, y: -r, width: 2 * r, height: 2 * r, transform: "rotate(45)", class: "shape" });
  }
  return s("circle", { r, class: "shape" });
}

export function renderGraph(container: HTMLElement, graph: SearchGraph, open: (name: string) => void, selected?: string): void {
  container.replaceChildren();
  if (graph.nodes.length === 0) return;
  const width = Math.max(320, container.clientWidth || 640);
  const positions = layout(graph, { width, height: HEIGHT, margin: 48 });
  const svg = s("svg", {
    viewBox: `0 0 ${width} ${HEIGHT}`,
    width: "100%",
    height: HEIGHT,
    role: "group",
    "aria-label": `Graph of ${graph.nodes.length} entities and ${graph.edges.length} relations. Arrow keys move between nodes, Enter opens one.`,
  });
  svg.append(
    s(
      "defs",
      {},
      s(
        "marker",
        { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
        s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }),
      ),
    ),
  );

  const edgeLayer = s("g", { class: "edges", "aria-hidden": "true" });
  for (const edge of graph.edges) {
    const a = positions.get(edge.from);
    const b = positions.get(edge.to);
    if (!a || !b) continue;
    // Stop the line at the target's rim so the arrowhead shows.
    const target = graph.nodes.find((n) => n.id === edge.to);
    const r = (target ? RADIUS[target.role] : 9) + 3;
    const d = Math.max(1, Math.hypot(b.x - a.x, b.y - a.y));
    const ex = b.x - ((b.x - a.x) / d) * r;
    const ey = b.y - ((b.y - a.y) / d) * r;
    const line = s(
      "line",
      { x1: a.x, y1: a.y, x2: ex, y2: ey, class: edge.onPath ? "edge path" : "edge", "marker-end": "url(#arrow)" },
      s("title", {}, `${edge.from} ${edge.relationType} ${edge.to}`),
    );
    edgeLayer.append(line);
    if (graph.edges.length <= EDGE_LABELS_MAX) {
      edgeLayer.append(s("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, class: "edge-label", "text-anchor": "middle" }, short(edge.relationType)));
    }
  }
  svg.append(edgeLayer);

  const nodeLayer = s("g", { class: "nodes" });
  const elements: SVGElement[] = [];
  const focusAt = (i: number) => {
    const next = elements[(i + elements.length) % elements.length];
    if (!next) return;
    for (const el of elements) el.setAttribute("tabindex", "-1");
    next.setAttribute("tabindex", "0");
    next.focus();
  };
  graph.nodes.forEach((node, i) => {
    const p = positions.get(node.id) ?? { x: 0, y: 0 };
    const g = s(
      "g",
      {
        class: `node ${node.role}${node.id === selected ? " selected" : ""}`,
        transform: `translate(${p.x},${p.y})`,
        role: "button",
        tabindex: i === 0 ? 0 : -1,
        "aria-label": nodeLabel(node),
        "data-name": node.id,
        onclick: () => open(node.id),
        onkeydown: ((event: KeyboardEvent) => {
          const moves: Record<string, number> = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: elements.length - 1 };
          const to = moves[event.key];
          if (to !== undefined) {
            event.preventDefault();
            focusAt(to);
          } else if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            open(node.id);
          }
        }) as EventListener,
      },
      s("title", {}, nodeLabel(node)),
      shape(node),
      s("text", { y: RADIUS[node.role] + 14, "text-anchor": "middle", class: "label" }, short(node.id)),
    );
    elements.push(g);
    nodeLayer.append(g);
  });
  svg.append(nodeLayer);
  container.append(svg);
}
