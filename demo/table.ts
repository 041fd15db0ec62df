/**
 * Server-side printing, as `kubectl get` does: the apiserver renders a kind's printer columns
 * into a Table, so the demo shows exactly what `kubectl get` would.
 */
import type { Client, ResourceType } from "kubeloop";

interface TableColumn {
  name: string;
  priority?: number;
}

interface TableResponse {
  columnDefinitions: TableColumn[];
  rows: { cells: unknown[] }[];
}

const accept = "application/json;as=Table;g=meta.k8s.io;v=v1,application/json;q=0.9";

function path(type: ResourceType, namespace: string): string {
  const root = type.apiVersion.includes("/") ? `/apis/${type.apiVersion}` : `/api/${type.apiVersion}`;
  return `${root}${type.namespaced ? `/namespaces/${namespace}` : ""}/${type.plural}`;
}

/** `kubectl get <kind> -n <namespace>` as lines of text (priority-0 columns only). */
export async function getTable(client: Client, type: ResourceType, namespace: string): Promise<string[]> {
  const table = await client.request<TableResponse>({
    method: "GET",
    verb: "list",
    path: path(type, namespace),
    headers: { accept },
  });
  const shown = table.columnDefinitions.map((c, i) => ({ ...c, i })).filter((c) => !c.priority);
  const rows = [
    shown.map((c) => c.name.toUpperCase()),
    ...table.rows.map((r) => shown.map((c) => String(r.cells[c.i] ?? ""))),
  ];
  const widths = shown.map((_, col) => Math.max(...rows.map((r) => (r[col] ?? "").length)));
  return rows.map((r) =>
    r
      .map((cell, col) => cell.padEnd(widths[col] ?? 0))
      .join("   ")
      .trimEnd(),
  );
}
