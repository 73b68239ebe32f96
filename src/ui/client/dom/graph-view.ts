/**
 * Draws a graph (../graph.ts) as inline SVG with zoom and pan; clicking a
 * node opens it and brings its neighbourhood into the picture.
 *
 * ## Zoom and pan
 * The picture is laid out in free coordinates and shown through the SVG's
 * viewBox: "Fit" shows everything, "Zoom in" and "Zoom out" (or the wheel,
 * around the pointer) change the scale, and dragging the background pans.
 * Labels are SVG text in the picture, so tests and screen readers read
 * them, and they scale with it: the layout keeps label boxes apart, so
 * they do not overlap at any zoom.
 *
 * Keyboard: the graph is one tab stop (roving tabindex); arrow keys move
 * between nodes in order, Home/End jump, Enter or Space opens the node.
 * Every node has an accessible name saying what it is; the same results
 * are also listed as buttons next to the graph.
 */
import { LABEL_MAX, labelWidth, layout, mergeGraphs, type GraphNode, type Point, type SearchGraph } from "../graph";
import { h, s } from "./dom";

/** Past this many edges, relation names would cover the picture: they stay in tooltips. */
const EDGE_LABELS_MAX = 40;
const MIN_HEIGHT = 420;
const MAX_HEIGHT = 720;
const PAD = 24;

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

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface GraphViewOptions {
  /** What the picture is of, said to screen readers ("Graph of …"). */
  label: string;
  open: (name: string) => void;
  /** The neighbourhood of `name` to bring into the picture; without it a click only opens. */
  neighbourhood?: (name: string) => Promise<SearchGraph | undefined>;
}

export class GraphView {
  private graph: SearchGraph | undefined;
  private positions = new Map<string, Point>();
  private view: Box = { x: 0, y: 0, w: 1, h: 1 };
  private svg: SVGSVGElement | undefined;
  private selected: string | undefined;

  constructor(
    private readonly container: HTMLElement,
    private readonly options: GraphViewOptions,
  ) {}

  get current(): SearchGraph | undefined {
    return this.graph;
  }

  /** Draws `graph`; nodes that were drawn before keep their places. */
  show(graph: SearchGraph | undefined, keep = false): void {
    this.graph = graph;
    if (!keep) this.positions = new Map();
    this.positions = graph ? layout(graph, { previous: this.positions }) : new Map();
    this.draw(true);
  }

  /** Redraws at the container's current width (after a resize). */
  redraw(): void {
    this.draw(true);
  }

  select(name: string | undefined): void {
    this.selected = name;
    for (const el of this.container.querySelectorAll(".node")) el.classList.toggle("selected", el.getAttribute("data-name") === name);
  }

  private async expand(name: string): Promise<void> {
    if (!this.options.neighbourhood || !this.graph) return;
    const more = await this.options.neighbourhood(name);
    if (!more || !this.graph) return;
    const merged = mergeGraphs(this.graph, more);
    if (merged.nodes.length === this.graph.nodes.length && merged.edges.length === this.graph.edges.length) return;
    this.show(merged, true);
  }

  private bounds(): Box {
    let x0 = Number.POSITIVE_INFINITY;
    let y0 = Number.POSITIVE_INFINITY;
    let x1 = Number.NEGATIVE_INFINITY;
    let y1 = Number.NEGATIVE_INFINITY;
    for (const [id, p] of this.positions) {
      const half = labelWidth(id) / 2;
      x0 = Math.min(x0, p.x - half);
      x1 = Math.max(x1, p.x + half);
      y0 = Math.min(y0, p.y - 16);
      y1 = Math.max(y1, p.y + 30);
    }
    return { x: x0 - PAD, y: y0 - PAD, w: x1 - x0 + 2 * PAD, h: y1 - y0 + 2 * PAD };
  }

  private setView(view: Box): void {
    this.view = view;
    this.svg?.setAttribute("viewBox", `${view.x} ${view.y} ${view.w} ${view.h}`);
  }

  /** Scales the view by `factor` (<1 zooms in) around the point (fx, fy) given as fractions of the frame. */
  private zoom(factor: number, fx = 0.5, fy = 0.5): void {
    const v = this.view;
    const w = v.w * factor;
    const hh = v.h * factor;
    this.setView({ x: v.x + (v.w - w) * fx, y: v.y + (v.h - hh) * fy, w, h: hh });
  }

  private draw(fit: boolean): void {
    const graph = this.graph;
    this.container.replaceChildren();
    this.svg = undefined;
    if (!graph || graph.nodes.length === 0) return;
    const width = Math.max(320, this.container.clientWidth || 640);
    const box = this.bounds();
    // The frame takes the picture's shape within limits, so a tall picture is not squeezed into a strip.
    const height = Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, (width * box.h) / box.w)));
    const svg = s("svg", {
      width: "100%",
      height,
      preserveAspectRatio: "xMidYMid meet",
      role: "group",
      "aria-label": `${this.options.label}: ${graph.nodes.length} entities and ${graph.edges.length} relations. Arrow keys move between nodes, Enter opens one.`,
    }) as SVGSVGElement;
    this.svg = svg;
    if (fit) this.setView(box);
    else this.setView(this.view);
    svg.append(
      s(
        "defs",
        {},
        s(
          "marker",
          { id: `arrow-${this.container.id}`, viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
          s("path", { d: "M0,0 L10,5 L0,10 z", class: "arrowhead" }),
        ),
      ),
    );
    const scene = s("g", {});
    scene.append(this.edges(graph), this.nodes(graph));
    svg.append(scene);
    this.panAndWheel(svg, width, height);

    const controls = h(
      "div",
      { class: "row graph-controls" },
      h("button", { type: "button", class: "small", onclick: () => this.zoom(0.8) }, "Zoom in"),
      h("button", { type: "button", class: "small", onclick: () => this.zoom(1.25) }, "Zoom out"),
      h("button", { type: "button", class: "small", onclick: () => this.setView(this.bounds()) }, "Fit"),
      h(
        "span",
        { class: "muted" },
        this.options.neighbourhood ? "Drag to pan, wheel to zoom; click a node to open it and show its neighbours." : "Drag to pan, wheel to zoom.",
      ),
    );
    this.container.append(controls, svg);
  }

  private edges(graph: SearchGraph): SVGElement {
    const layer = s("g", { class: "edges", "aria-hidden": "true" });
    const roles = new Map(graph.nodes.map((n) => [n.id, n.role]));
    for (const edge of graph.edges) {
      const a = this.positions.get(edge.from);
      const b = this.positions.get(edge.to);
      if (!a || !b) continue;
      // Stop the line at the target's rim so the arrowhead shows.
      const r = RADIUS[roles.get(edge.to) ?? "other"] + 3;
      const d = Math.max(1, Math.hypot(b.x - a.x, b.y - a.y));
      const ex = b.x - ((b.x - a.x) / d) * r;
      const ey = b.y - ((b.y - a.y) / d) * r;
      layer.append(
        s(
          "line",
          { x1: a.x, y1: a.y, x2: ex, y2: ey, class: edge.onPath ? "edge path" : "edge", "marker-end": `url(#arrow-${this.container.id})` },
          s("title", {}, `${edge.from} ${edge.relationType} ${edge.to}`),
        ),
      );
      if (graph.edges.length <= EDGE_LABELS_MAX) {
        layer.append(s("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, class: "edge-label", "text-anchor": "middle" }, short(edge.relationType)));
      }
    }
    return layer;
  }

  private nodes(graph: SearchGraph): SVGElement {
    const layer = s("g", { class: "nodes" });
    const elements: SVGElement[] = [];
    const focusAt = (i: number) => {
      const next = elements[(i + elements.length) % elements.length];
      if (!next) return;
      for (const el of elements) el.setAttribute("tabindex", "-1");
      next.setAttribute("tabindex", "0");
      next.focus();
    };
    const activate = (name: string) => {
      this.options.open(name);
      void this.expand(name);
    };
    graph.nodes.forEach((node, i) => {
      const p = this.positions.get(node.id) ?? { x: 0, y: 0 };
      const g = s(
        "g",
        {
          class: `node ${node.role}${node.id === this.selected ? " selected" : ""}`,
          transform: `translate(${p.x},${p.y})`,
          role: "button",
          tabindex: i === 0 ? 0 : -1,
          "aria-label": nodeLabel(node),
          "data-name": node.id,
          onclick: () => activate(node.id),
          onkeydown: ((event: KeyboardEvent) => {
            const moves: Record<string, number> = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: elements.length - 1 };
            const to = moves[event.key];
            if (to !== undefined) {
              event.preventDefault();
              focusAt(to);
            } else if (event.key === "Enter" || event.key === " ") {
              event.preventDefault();
              activate(node.id);
            }
          }) as EventListener,
        },
        s("title", {}, nodeLabel(node)),
        shape(node),
        s("text", { y: RADIUS[node.role] + 14, "text-anchor": "middle", class: "label" }, short(node.id)),
      );
      elements.push(g);
      layer.append(g);
    });
    return layer;
  }

  /** Dragging the background pans; the wheel zooms around the pointer. */
  private panAndWheel(svg: SVGSVGElement, width: number, height: number): void {
    let drag: { x: number; y: number; view: Box } | undefined;
    // Frame pixels per view unit, for turning pointer moves into view moves.
    const unit = () => Math.max(this.view.w / width, this.view.h / height);
    svg.addEventListener("pointerdown", (event) => {
      if ((event.target as Element).closest(".node")) return;
      drag = { x: event.clientX, y: event.clientY, view: { ...this.view } };
      svg.setPointerCapture(event.pointerId);
    });
    svg.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const k = unit();
      this.setView({ ...drag.view, x: drag.view.x - (event.clientX - drag.x) * k, y: drag.view.y - (event.clientY - drag.y) * k });
    });
    const end = () => (drag = undefined);
    svg.addEventListener("pointerup", end);
    svg.addEventListener("pointercancel", end);
    svg.addEventListener(
      "wheel",
      (event) => {
        event.preventDefault();
        const rect = svg.getBoundingClientRect();
        this.zoom(event.deltaY < 0 ? 0.9 : 1.1, (event.clientX - rect.left) / rect.width, (event.clientY - rect.top) / rect.height);
      },
      { passive: false },
    );
  }
}
