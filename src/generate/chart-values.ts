/**
 * The files of an operator's chart around its templates: `Chart.yaml`, `values.yaml` (what a user
 * may change, each value explained, the defaults those `kubeloop generate` was given) and
 * `values.schema.json` (which Helm checks values against, so a wrong one fails `helm install`
 * with the value's name rather than rendering a broken manifest).
 */
import { toYaml } from "../schema/index.ts";
import { DEFAULT_RESOURCES, type OperatorManifestOptions } from "./manifests.ts";

/** The shards of `sharding.shards` unless `kubeloop generate --shards` says otherwise. */
const DEFAULT_SHARDS = 32;

/** An image as repository and tag (empty for an image by digest or without a tag). */
export function imageParts(image: string): { repository: string; tag: string } {
  const colon = image.lastIndexOf(":");
  if (image.includes("@") || colon <= image.lastIndexOf("/")) return { repository: image, tag: "" };
  return { repository: image.slice(0, colon), tag: image.slice(colon + 1) };
}

/** `Chart.yaml`, `values.yaml` and `values.schema.json` of the operator's chart. */
export function chartFiles(options: OperatorManifestOptions): Map<string, string> {
  const { tag } = imageParts(options.image);
  const chart = {
    apiVersion: "v2",
    name: options.name,
    description: `The ${options.name} operator, deployed as \`kubeloop generate\` deploys it.`,
    type: "application",
    version: "0.1.0",
    appVersion: tag || "latest",
  };
  return new Map([
    ["Chart.yaml", toYaml([chart])],
    ["values.yaml", valuesYaml(options)],
    ["values.schema.json", `${JSON.stringify(valuesSchema(options), null, 2)}\n`],
  ]);
}

/** A value's YAML under its comment lines. */
function commented(comment: readonly string[], value: Record<string, unknown>): string {
  return `${comment.map((line) => `# ${line}`).join("\n")}\n${toYaml([value])}`;
}

function valuesYaml(options: OperatorManifestOptions): string {
  const sharding = options.sharding;
  const sections = [
    commented(["The operator's image."], {
      image: { ...imageParts(options.image), pullPolicy: "IfNotPresent" },
    }),
    commented(
      [
        "Replicas of the Deployment. Without sharding they campaign for the leader-election Lease:",
        "one reconciles, the others stand by to take over.",
      ],
      { replicas: options.replicas ?? 1 },
    ),
    commented(["The operator container's resources."], {
      resources: options.resources ?? DEFAULT_RESOURCES,
    }),
    commented(
      [
        "Shard the controllers across the replicas, instead of leader election: each replica",
        "reconciles the objects of the shards whose Leases it holds; key is what places an object",
        "in a shard (namespace or uid).",
      ],
      {
        sharding: {
          enabled: Boolean(sharding),
          shards: sharding?.shards ?? DEFAULT_SHARDS,
          key: sharding?.key ?? "namespace",
        },
      },
    ),
    ...(options.webhooks
      ? [
          commented(
            [
              "Who makes the webhooks' serving certificate: cert-manager, which must be installed in",
              "the cluster first (https://cert-manager.io/docs/installation/), or self: the operator",
              "makes it from a CA its replicas share in a Secret, and patches the CA in.",
            ],
            { webhooks: { certificates: options.webhooks.certificates } },
          ),
        ]
      : []),
    commented(["The Service in front of the operator's /metrics (HTTPS, to authorized callers only)."], {
      metrics: { enabled: true },
    }),
    commented(
      ["A ServiceMonitor and a PrometheusRule for the Prometheus Operator, which must be installed."],
      { prometheus: { enabled: false } },
    ),
    commented(["Install the CRDs with the chart; helm uninstall leaves them (and the objects) in place."], {
      crd: { enable: true },
    }),
  ];
  return sections.join("\n");
}

const flag = { type: "object", properties: { enabled: { type: "boolean" } } };

function valuesSchema(options: OperatorManifestOptions) {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      image: {
        type: "object",
        required: ["repository"],
        properties: {
          repository: { type: "string", minLength: 1 },
          tag: { type: "string" },
          pullPolicy: { enum: ["Always", "IfNotPresent", "Never"] },
        },
      },
      replicas: { type: "integer", minimum: 1 },
      resources: { type: "object" },
      sharding: {
        type: "object",
        properties: {
          enabled: { type: "boolean" },
          shards: { type: "integer", minimum: 1 },
          key: { enum: ["namespace", "uid"] },
        },
      },
      ...(options.webhooks
        ? {
            webhooks: {
              type: "object",
              properties: { certificates: { enum: ["cert-manager", "self"] } },
            },
          }
        : {}),
      metrics: flag,
      prometheus: flag,
      crd: { type: "object", properties: { enable: { type: "boolean" } } },
    },
  };
}
