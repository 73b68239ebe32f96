/**
 * Export and import on the page, through the REST routes `npm run export`
 * and `npm run import` use: "Export" downloads the context's memory.jsonl
 * (GET /api/contexts/<name>/export, read grant); the file input "Import"
 * and its button upload one (POST …/import, write grant) and show the
 * report: what was created, merged and added, and each rejected line by
 * number with the reason. An import that stops part-way says where and
 * shows what it wrote. The import is recorded in history like any change.
 */
import type { App } from "./app";
import { byId, fill, h } from "./dom";

interface ImportReport {
  entitiesCreated: number;
  entitiesMerged: number;
  observationsAdded: number;
  relationsCreated: number;
  duplicates: number;
  archivedAdded: number;
  rejected: { line: number; error: string }[];
}

function reportOf(r: ImportReport): HTMLElement[] {
  const counts: [string, number][] = [
    ["Entities created", r.entitiesCreated],
    ["Entities merged", r.entitiesMerged],
    ["Observations added", r.observationsAdded],
    ["Relations created", r.relationsCreated],
    ["Duplicates", r.duplicates],
    ["Archived items", r.archivedAdded],
  ];
  return [
    h("dl", { class: "counts" }, ...counts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))])),
    h("p", {}, r.rejected.length === 0 ? "No line was rejected." : `${r.rejected.length} ${r.rejected.length === 1 ? "line was" : "lines were"} rejected:`),
    r.rejected.length === 0 ? h("span", {}) : h("ul", { class: "rejected" }, ...r.rejected.map((x) => h("li", {}, `Line ${x.line}: ${x.error}`))),
  ];
}

export class TransferView {
  constructor(private readonly app: App) {
    byId("export").addEventListener("click", () => void this.exportFile());
    byId<HTMLFormElement>("import-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void this.importFile();
    });
  }

  private async exportFile(): Promise<void> {
    this.app.clearAlert();
    try {
      const blob = await this.app.client.getBlob(`/contexts/${encodeURIComponent(this.app.context)}/export`);
      const url = URL.createObjectURL(blob);
      const link = h("a", { href: url, download: "memory.jsonl", hidden: true });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      this.app.status(`Exported ${this.app.context} as memory.jsonl.`);
    } catch (error) {
      this.app.fail(error);
    }
  }

  private async importFile(): Promise<void> {
    const file = byId<HTMLInputElement>("import-file").files?.[0];
    const out = byId("import-report");
    if (!file) {
      fill(out, h("p", {}, "Choose a memory.jsonl file first."));
      return;
    }
    this.app.clearAlert();
    fill(out, h("p", {}, "Importing…"));
    try {
      const r = await this.app.client.postBody<ImportReport & { message?: string; partial?: ImportReport }>(
        `/contexts/${encodeURIComponent(this.app.context)}/import`,
        file,
        "application/x-ndjson",
      );
      if (r.status === 200) fill(out, h("p", {}, `Imported ${file.name}.`), ...reportOf(r.body));
      else fill(out, h("p", { class: "error" }, r.body.message ?? `The import failed (HTTP ${r.status}).`), ...(r.body.partial ? reportOf(r.body.partial) : []));
    } catch (error) {
      fill(out);
      this.app.fail(error);
    }
    await this.app.emitChanged();
  }
}
