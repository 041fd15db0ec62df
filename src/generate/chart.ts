/**
 * An operator's Helm chart (`kubeloop generate --helm`), after kubebuilder's `helm/v2-alpha`
 * plugin: its templates are the manifests {@link operatorManifests} writes, rendered once per
 * choice the values offer (sharding or leader election; for webhooks, who makes their
 * certificate) and joined under `if`s, with the release's namespace and the values' image,
 * replicas, resources and shards in place of the generated ones. So the chart cannot drift from
 * `kubeloop generate`'s manifests: it is them.
 *
 * CRDs go in `templates/`, as kubebuilder's plugin puts them, not in `crds/`: Helm installs `crds/`
 * once, never upgrades it and cannot template it, while a CRD with a conversion webhook names the
 * release's namespace (its Service, cert-manager's `inject-ca-from`). They carry
 * `helm.sh/resource-policy: keep`, so that `helm uninstall` leaves them, and every custom resource,
 * in place.
 */
import { parseAllDocuments } from "yaml";
import { toYaml } from "../schema/index.ts";
import { chartFiles } from "./chart-values.ts";
import { CRDS_FILE, DEPLOYMENT_FILE, type OperatorManifestOptions, operatorManifests } from "./manifests.ts";
import { MONITORING_DIR } from "./monitoring.ts";

/** Stand-ins rendered in place of what the chart's values and release decide, then replaced. */
const NAMESPACE = "kl-release-namespace";
const IMAGE = "kl-chart-image";
const REPLICAS = 7_000_001;
const SHARDS = 7_000_002;

/** One choice of a value the templates branch on: its `if` condition and how it changes the manifests. */
interface Choice {
  readonly condition: string;
  readonly apply: (options: OperatorManifestOptions) => OperatorManifestOptions;
}

/** The choices the values offer, one list per value. */
function dimensionsOf(options: OperatorManifestOptions): Choice[][] {
  const key = options.sharding?.key ?? "namespace";
  const sharding: Choice[] = [
    { condition: "not .Values.sharding.enabled", apply: (o) => o },
    { condition: ".Values.sharding.enabled", apply: (o) => ({ ...o, sharding: { shards: SHARDS, key } }) },
  ];
  const webhooks = options.webhooks;
  if (!webhooks) return [sharding];
  const certificates = (["cert-manager", "self"] as const).map((certificates) => ({
    condition: `eq .Values.webhooks.certificates "${certificates}"`,
    apply: (o: OperatorManifestOptions) => ({ ...o, webhooks: { ...webhooks, certificates } }),
  }));
  return [sharding, certificates];
}

/** Every combination of one choice per dimension, as indexes. */
function combinations(dimensions: readonly Choice[][]): number[][] {
  return dimensions.reduce<number[][]>(
    (combos, choices) => combos.flatMap((combo) => choices.map((_, i) => [...combo, i])),
    [[]],
  );
}

/** Generated files the chart leaves out: Helm's `--create-namespace` makes the namespace, the rest is not for a cluster. */
const leftOut = new Set([
  "namespace.yaml",
  "kustomization.yaml",
  `${MONITORING_DIR}/kustomization.yaml`,
  `${MONITORING_DIR}/alerts.yaml`,
]);

/** The value that turns a file's objects on, for those that can be turned off. */
const fileGates: Readonly<Record<string, string>> = {
  [CRDS_FILE]: ".Values.crd.enable",
  "metrics-service.yaml": ".Values.metrics.enabled",
  [`${MONITORING_DIR}/servicemonitor.yaml`]: ".Values.prometheus.enabled",
  [`${MONITORING_DIR}/prometheusrule.yaml`]: ".Values.prometheus.enabled",
};

/**
 * The operator's Helm chart, file name → text: `Chart.yaml`, `values.yaml` (image, replicas,
 * resources, sharding, the webhooks' certificate maker, metrics, Prometheus Operator objects,
 * CRDs; defaults from `options`), `values.schema.json`, and under `templates/` the manifests of
 * {@link operatorManifests} but the Namespace (install with `--create-namespace`), the
 * kustomizations, the Dockerfile, the dashboard and the plain alert rules.
 *
 * @example
 * ```ts
 * for (const [file, text] of helmChart({
 *   name: "widgets",
 *   namespace: "widgets",
 *   image,
 *   kinds: [Widget],
 *   permissions: controllerPermissions({ primary: Widget, owns: [Deployment] }),
 * })) {
 *   await writeFile(join("chart", file), text);
 * }
 * ```
 */
export function helmChart(options: OperatorManifestOptions): Map<string, string> {
  const base = { ...options, namespace: NAMESPACE, image: IMAGE, replicas: REPLICAS };
  // Unsharded, as the values' default: the sharding choice puts it back with the value's shards.
  const { sharding: _sharding, ...unsharded } = base;
  const dimensions = dimensionsOf(options);
  const renders = combinations(dimensions).map((combo) => ({
    combo,
    files: operatorManifests(
      combo.reduce<OperatorManifestOptions>((o, choice, d) => dimensions[d]![choice]!.apply(o), unsharded),
    ),
  }));
  const chart = chartFiles(options);
  const names = new Set(renders.flatMap((r) => [...r.files.keys()]));
  for (const name of [...names].filter((n) => n.endsWith(".yaml") && !leftOut.has(n))) {
    const variants = renders.map((r) => ({ combo: r.combo, text: templated(name, r.files.get(name) ?? "") }));
    chart.set(`templates/${name}`, gated(fileGates[name], branched(variants, dimensions)));
  }
  return chart;
}

/** A file's text as a template: `{{` escaped, the stand-ins replaced by the values, CRDs kept. */
function templated(name: string, text: string): string {
  const source = name === CRDS_FILE ? keptCrds(text) : text;
  const template = source
    .replaceAll("{{", '{{ "{{" }}')
    .replaceAll(NAMESPACE, "{{ .Release.Namespace }}")
    .replace(
      /^( *)image: kl-chart-image$/gm,
      '$1image: "{{ .Values.image.repository }}{{ with .Values.image.tag }}:{{ . }}{{ end }}"',
    )
    .replace(/^( *)imagePullPolicy: IfNotPresent$/gm, "$1imagePullPolicy: {{ .Values.image.pullPolicy }}")
    .replaceAll(String(REPLICAS), "{{ .Values.replicas }}")
    .replaceAll(String(SHARDS), "{{ .Values.sharding.shards }}")
    .replace(/--shard-key=\w+/g, "--shard-key={{ .Values.sharding.key }}");
  return name === DEPLOYMENT_FILE ? withResourcesValue(template) : template;
}

/** The container's `resources` block (requests and limits) replaced by the `resources` value. */
function withResourcesValue(deployment: string): string {
  return deployment.replace(
    /^( *)resources:\n(?=\1 {2}(?:requests|limits):)(?:\1 {2}.*\n)+/gm,
    (_, indent: string) =>
      `${indent}resources: {{- toYaml .Values.resources | nindent ${indent.length + 2} }}\n`,
  );
}

/** The CRDs with `helm.sh/resource-policy: keep`, which `helm uninstall` leaves in place. */
function keptCrds(text: string): string {
  const crds = parseAllDocuments(text).map((doc) => {
    const crd = doc.toJS() as { metadata: { annotations?: Record<string, string> } };
    crd.metadata.annotations = { ...crd.metadata.annotations, "helm.sh/resource-policy": "keep" };
    return crd;
  });
  return toYaml(crds);
}

/**
 * One text when every combination renders the file alike; else an `if` chain over the choices
 * that change it (the others left out of its conditions).
 */
function branched(variants: { combo: number[]; text: string }[], dimensions: readonly Choice[][]): string {
  const mattering = dimensions
    .map((_, d) => d)
    .filter((d) => {
      const byOthers = new Map<string, string>();
      return variants.some(({ combo, text }) => {
        const others = combo.filter((_, i) => i !== d).join();
        const seen = byOthers.get(others);
        byOthers.set(others, text);
        return seen !== undefined && seen !== text;
      });
    });
  const branches = new Map<string, { condition: string; text: string }>();
  for (const { combo, text } of variants) {
    const conditions = mattering.map((d) => dimensions[d]![combo[d]!]!.condition);
    const condition = conditions.length > 1 ? `and (${conditions.join(") (")})` : (conditions[0] ?? "");
    if (!branches.has(condition)) branches.set(condition, { condition, text });
  }
  const chain = [...branches.values()];
  if (chain.length === 1) return chain[0]!.text;
  const arms = chain.map(({ condition, text }, i) => {
    const head = i === 0 ? `if ${condition}` : i === chain.length - 1 ? "else" : `else if ${condition}`;
    return `{{- ${head} }}\n${text}`;
  });
  return `${arms.join("")}{{- end }}\n`;
}

/** `text` under `{{- if gate }}`, when the file has a gate. */
function gated(gate: string | undefined, text: string): string {
  return gate ? `{{- if ${gate} }}\n${text}{{- end }}\n` : text;
}
