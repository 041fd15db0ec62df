/**
 * The operator's Grafana dashboard as JSON (schema 39, Grafana 10 and later): its data source is a
 * variable (`${datasource}`, any Prometheus), `$job` and `$namespace` pick the operator's scrape
 * target and `$controller` its controllers; the rows of `dashboard-panels.ts` laid out on
 * Grafana's 24-column grid.
 */
import { METRICS } from "../metrics/index.ts";
import { dashboardRows, type PanelSpec, type RowSpec } from "./dashboard-panels.ts";
import type { MonitoringOptions } from "./monitoring.ts";
import type { QueryLabel } from "./queries.ts";

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax, not a template.
const datasource = { type: "prometheus", uid: "${datasource}" };
const gridWidth = 24;

/** A metric every running manager exposes, with the labels the variables read from it. */
const variableSource = METRICS.maxConcurrentReconciles;

/** A variable whose values are `label`'s values on {@link variableSource} within `selector`. */
function labelVariable(
  label: QueryLabel<typeof variableSource>,
  selector: string,
  current: string | undefined,
  multi = false,
) {
  const query = `label_values(${variableSource.name}${selector ? `{${selector}}` : ""}, ${label})`;
  return {
    name: label,
    label,
    type: "query",
    datasource,
    query: { query, refId: label },
    definition: query,
    refresh: 2,
    sort: 1,
    hide: 0,
    multi,
    includeAll: multi,
    ...(multi ? { allValue: ".*" } : {}),
    current: current === undefined ? {} : { text: current, value: current },
  };
}

function variables(options: MonitoringOptions) {
  return [
    {
      name: "datasource",
      label: "Data source",
      type: "datasource",
      query: "prometheus",
      hide: 0,
      current: {},
    },
    labelVariable("job", "", options.job),
    labelVariable("namespace", 'job="$job"', options.namespace),
    labelVariable("controller", 'job="$job", namespace="$namespace"', undefined, true),
  ];
}

/** A panel's Grafana JSON at `gridPos`. */
function panelJson(panel: PanelSpec, id: number, gridPos: { x: number; y: number; w: number; h: number }) {
  const common = {
    id,
    type: panel.stat ? "stat" : "timeseries",
    title: panel.title,
    description: panel.description,
    datasource,
    gridPos,
    fieldConfig: { defaults: { unit: panel.unit }, overrides: [] },
    targets: panel.targets.map(([expr, legendFormat], i) => ({
      datasource,
      expr,
      legendFormat,
      refId: String.fromCharCode(65 + i),
    })),
  };
  const options = panel.stat
    ? {
        reduceOptions: { calcs: ["lastNotNull"], fields: "", values: false },
        textMode: "auto",
        graphMode: "area",
      }
    : {
        legend: { displayMode: "list", placement: "bottom", showLegend: true },
        tooltip: { mode: "multi", sort: "desc" },
      };
  return { ...common, options };
}

/** Lays out the rows: each a header, then its panels left to right, wrapping at the grid's width. */
function layout(rows: readonly RowSpec[]): unknown[] {
  const panels: unknown[] = [];
  let y = 0;
  for (const row of rows) {
    panels.push({
      id: panels.length + 1,
      type: "row",
      title: row.title,
      collapsed: false,
      panels: [],
      gridPos: { x: 0, y, w: gridWidth, h: 1 },
    });
    y += 1;
    const w = row.panels.every((p) => p.stat) ? gridWidth / row.panels.length : 8;
    const h = row.panels.every((p) => p.stat) ? 4 : 8;
    row.panels.forEach((panel, i) => {
      const x = (i * w) % gridWidth;
      if (i > 0 && x === 0) y += h;
      panels.push(panelJson(panel, panels.length + 1, { x, y, w, h }));
    });
    y += h;
  }
  return panels;
}

/**
 * The Grafana dashboard of the operator `options.name`, as an object to write as JSON: import it in
 * Grafana (Dashboards → New → Import), or let a Grafana sidecar load it from the ConfigMap that
 * `monitoring/kustomization.yaml` makes.
 *
 * @example
 * ```ts
 * const dashboard = grafanaDashboard({ name: "widgets", namespace: "widgets", job: "widgets-metrics" });
 * writeFileSync("dashboard.json", JSON.stringify(dashboard, null, 2));
 * ```
 */
export function grafanaDashboard(options: MonitoringOptions): Record<string, unknown> {
  return {
    uid: `kubeloop-${options.name}`.slice(0, 40),
    title: `${options.name} operator`,
    description: `Reconciles, work queues, informers, drift repairs and leadership of the ${options.name} operator (kubeloop)`,
    tags: ["kubeloop", "operator", options.name],
    editable: true,
    graphTooltip: 1,
    refresh: "30s",
    schemaVersion: 39,
    time: { from: "now-3h", to: "now" },
    timezone: "",
    annotations: { list: [] },
    links: [],
    templating: { list: variables(options) },
    panels: layout(dashboardRows(options)),
    version: 1,
  };
}
