/**
 * Deployment manifests for an operator: its Namespace, ServiceAccount, RBAC, CRDs, a hardened
 * Deployment serving secure metrics and the Service in front of them, the other objects it ships
 * (e.g. an admission policy), plus the Dockerfile and a kustomization, as file name → text.
 */
import {
  type Container,
  Deployment,
  type DeploymentObject,
  type KubeObject,
  Namespace,
  type NamespaceObject,
  ServiceAccount,
  type ServiceAccountObject,
} from "../api/index.ts";
import type { PermissionRequest } from "../controller/index.ts";
import { type AnyKind, crdFor, toYaml } from "../schema/index.ts";
import type { ShardKey } from "../sharding/index.ts";
import { operatorLabels } from "../webhook/index.ts";
import { type DockerfileOptions, dockerfile, dockerignore, kustomization } from "./dockerfile.ts";
import { monitoringFiles } from "./monitoring.ts";
import { eventPermissions, leaderElectionPermissions, shardingPermissions } from "./permissions.ts";
import { type RbacObjects, rbacFor } from "./rbac.ts";
import {
  metricsAuthRbac,
  metricsReaderRole,
  metricsServiceManifest,
  metricsServiceName,
  SECURE_METRICS_PORT,
} from "./secure-metrics.ts";
import { userRoles } from "./user-roles.ts";
import {
  type OperatorWebhooks,
  WEBHOOK_CERT_DIR,
  WEBHOOK_PORT,
  webhookCaPermissions,
  webhookManifests,
  webhookSecretName,
  withConversions,
} from "./webhooks.ts";

/** The file of the operator's CRDs. */
export const CRDS_FILE = "crds.yaml";
/** The file of the webhooks' Service, configurations and (with cert-manager) Issuer and Certificate. */
export const WEBHOOKS_FILE = "webhooks.yaml";
/** The file of the operator's Deployment. */
export const DEPLOYMENT_FILE = "deployment.yaml";
/** The file of the other cluster objects the operator ships (its definition's `manifests`). */
export const EXTRAS_FILE = "extras.yaml";

/** Env var holding the pod's name (downward API); the leader-election identity. */
export const POD_NAME_ENV = "POD_NAME";
/** Env var holding the pod's namespace (downward API). */
export const POD_NAMESPACE_ENV = "POD_NAMESPACE";
/** Environment variable carrying the pod's UID (with the name, the leader-election identity). */
export const POD_UID_ENV = "POD_UID";

/** Options of {@link deploymentManifest}. */
export interface DeploymentOptions {
  /** Name of the Deployment, its labels and (by default) its service account. */
  readonly name: string;
  /** Namespace the operator runs in. */
  readonly namespace: string;
  readonly image: string;
  readonly serviceAccountName?: string;
  /** Default 1; run 2 or more only with leader election or `sharding`. */
  readonly replicas?: number;
  /** Shard the controllers across the replicas: the container gets `--shards` and `--shard-key`. */
  readonly sharding?: { readonly shards: number; readonly key?: ShardKey };
  /** Port of `/healthz` and `/readyz` (plain HTTP); default 8081. */
  readonly healthPort?: number;
  /** Port of `/metrics`, served over HTTPS to authorized callers only; default 8443. */
  readonly metricsPort?: number;
  /** Default: requests cpu 100m, memory 128Mi; limit memory 256Mi. */
  readonly resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  /** Extra environment, after `POD_NAME`, `POD_NAMESPACE` and `POD_UID`. */
  readonly env?: readonly { name: string; value: string }[];
  /**
   * The operator's webhooks: the container serves them on port 9443 (`webhook-server`), with
   * cert-manager's Secret mounted at `/tmp/k8s-webhook-server/serving-certs`, or a certificate of
   * its own.
   */
  readonly webhooks?: OperatorWebhooks;
  /** Extra arguments, after the endpoint flags (`--metrics-bind-address`, `--metrics-secure`, `--health-probe-bind-address`). */
  readonly args?: readonly string[];
}

/** The operator container's resources unless `DeploymentOptions.resources` says otherwise. */
export const DEFAULT_RESOURCES = {
  requests: { cpu: "100m", memory: "128Mi" },
  limits: { memory: "256Mi" },
} as const;

/** The Namespace object. */
export function namespaceManifest(name: string): NamespaceObject {
  return { apiVersion: Namespace.apiVersion, kind: Namespace.kind, metadata: { name } };
}

/** The ServiceAccount object. */
export function serviceAccountManifest(name: string, namespace: string): ServiceAccountObject {
  return { apiVersion: ServiceAccount.apiVersion, kind: ServiceAccount.kind, metadata: { name, namespace } };
}

/**
 * The operator's Deployment: `/healthz` (liveness) and `/readyz` (readiness) probes on the health
 * port, a `metrics` port served over HTTPS to authorized callers (flags as kubebuilder's
 * scaffold: `--metrics-bind-address=:8443 --metrics-secure --health-probe-bind-address=:8081`), resource requests, a restrictive security context (non-root, read-only
 * root filesystem with an emptyDir at /tmp, no privilege escalation, all capabilities dropped,
 * RuntimeDefault seccomp) and the pod's name and namespace from the downward API.
 */
export function deploymentManifest(options: DeploymentOptions): DeploymentObject {
  const selector = podLabels(options.name);
  // Labelled as the operator's own, which its webhooks for built-in kinds leave out; the selector stays.
  const labels = { ...selector, ...operatorLabels(options.name) };
  return {
    apiVersion: Deployment.apiVersion,
    kind: Deployment.kind,
    metadata: { name: options.name, namespace: options.namespace, labels },
    spec: {
      replicas: options.replicas ?? 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: options.serviceAccountName ?? options.name,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
          terminationGracePeriodSeconds: 30,
          containers: [operatorContainer(options)],
          volumes: [{ name: "tmp", emptyDir: {} }, ...webhookVolumes(options)],
        },
      },
    },
  };
}

/** The labels of the operator's pods, which its Deployment and metrics Service select. */
export function podLabels(name: string): Record<string, string> {
  return { "app.kubernetes.io/name": name };
}

/** cert-manager's certificate Secret, when it makes the webhook certificate. */
function webhookVolumes(options: DeploymentOptions) {
  if (options.webhooks?.certificates !== "cert-manager") return [];
  return [{ name: "webhook-certs", secret: { secretName: webhookSecretName(options.name) } }];
}

/** The container's webhook flags, port and certificate mount; nothing without webhooks. */
function webhookContainer(options: DeploymentOptions) {
  const webhooks = options.webhooks;
  if (!webhooks) return { args: [], ports: [], volumeMounts: [] };
  const certManager = webhooks.certificates === "cert-manager";
  return {
    args: [
      `--webhook-bind-address=:${WEBHOOK_PORT}`,
      ...(certManager ? [`--webhook-cert-path=${WEBHOOK_CERT_DIR}`] : []),
    ],
    ports: [{ name: "webhook-server", containerPort: WEBHOOK_PORT, protocol: "TCP" as const }],
    volumeMounts: certManager ? [{ name: "webhook-certs", mountPath: WEBHOOK_CERT_DIR, readOnly: true }] : [],
  };
}

function operatorContainer(options: DeploymentOptions): Container {
  const webhook = webhookContainer(options);
  const healthPort = options.healthPort ?? 8081;
  const metricsPort = options.metricsPort ?? SECURE_METRICS_PORT;
  return {
    name: "operator",
    image: options.image,
    ...(isLocalImage(options.image) ? { imagePullPolicy: "IfNotPresent" } : {}),
    args: [
      `--metrics-bind-address=:${metricsPort}`,
      "--metrics-secure",
      `--health-probe-bind-address=:${healthPort}`,
      ...(options.sharding
        ? [`--shards=${options.sharding.shards}`, `--shard-key=${options.sharding.key ?? "namespace"}`]
        : []),
      ...webhook.args,
      ...(options.args ?? []),
    ],
    env: [
      { name: POD_NAME_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
      { name: POD_NAMESPACE_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
      { name: POD_UID_ENV, valueFrom: { fieldRef: { fieldPath: "metadata.uid" } } },
      ...(options.env ?? []),
    ],
    ports: [
      { name: "metrics", containerPort: metricsPort, protocol: "TCP" },
      { name: "health", containerPort: healthPort, protocol: "TCP" },
      ...webhook.ports,
    ],
    livenessProbe: {
      httpGet: { path: "/healthz", port: healthPort },
      initialDelaySeconds: 5,
      periodSeconds: 10,
    },
    readinessProbe: {
      httpGet: { path: "/readyz", port: healthPort },
      initialDelaySeconds: 2,
      periodSeconds: 5,
    },
    resources: options.resources ?? structuredClone(DEFAULT_RESOURCES),
    securityContext: {
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    },
    volumeMounts: [{ name: "tmp", mountPath: "/tmp" }, ...webhook.volumeMounts],
  };
}

/**
 * True for an image named without a registry or repository path (`widgets:latest`, `widgets`): one
 * built on the developer's machine and loaded into the cluster's nodes (`kind load docker-image`,
 * `minikube image load`). It gets `imagePullPolicy: IfNotPresent`, since Kubernetes' default for
 * `:latest` or no tag is `Always`, which fails for an image no registry has; for a pulled image
 * with a tag, `IfNotPresent` is the default anyway.
 */
export function isLocalImage(image: string): boolean {
  return !image.includes("/");
}

/** The Lease permissions in the operator's namespace: the shards', leader election's, or none. */
function leasePermissions(options: OperatorManifestOptions): PermissionRequest[] {
  if (options.sharding) return shardingPermissions(options.namespace);
  return options.leaderElection === false ? [] : leaderElectionPermissions(options.namespace);
}

/** Options of {@link operatorManifests}. */
export interface OperatorManifestOptions extends DeploymentOptions {
  /** Kinds whose CRDs ship with the operator (`crds.yaml`). */
  readonly kinds?: readonly AnyKind[];
  /**
   * Other cluster objects the operator ships (`extras.yaml`), e.g. a ValidatingAdmissionPolicy;
   * the operator's RBAC grants nothing for them.
   */
  readonly extras?: readonly KubeObject[];
  /** What the operator may do, e.g. from `controllerPermissions`. */
  readonly permissions: readonly PermissionRequest[];
  /** Confine RBAC to this namespace (Role instead of ClusterRole). */
  readonly watchNamespace?: string;
  /** Add lease permissions in the operator's namespace (with `sharding`, those of the shards); default true. */
  readonly leaderElection?: boolean;
  readonly dockerfile?: DockerfileOptions;
}

/**
 * Every file needed to deploy an operator, file name → content, in apply order:
 * `namespace.yaml`, `crds.yaml` (when kinds are given), `extras.yaml` (when extras are given),
 * `serviceaccount.yaml`, `rbac.yaml` (the operator's roles, with self-managed webhook certificates a
 * `<name>-webhook-ca` ClusterRole patching its webhook configurations and converted CRDs by name, the `<name>-metrics-auth` ClusterRole
 * its secure metrics need, the `<name>-metrics-reader` ClusterRole for scrapers, and an editor and
 * a viewer ClusterRole per kind for its users, see {@link userRoles}), `deployment.yaml`, `metrics-service.yaml`,
 * `webhooks.yaml` (with webhooks: see `webhookManifests`),
 * `kustomization.yaml` (listing the files above), the monitoring files under `monitoring/` (a
 * Grafana dashboard and alert rules, see `monitoringFiles`), `Dockerfile` and its `.dockerignore`.
 *
 * @example
 * ```ts
 * for (const [file, text] of operatorManifests({
 *   name: "widgets",
 *   namespace: "widgets",
 *   image,
 *   kinds: [Widget],
 *   permissions: controllerPermissions({ primary: Widget, owns: [Deployment] }),
 * })) {
 *   await writeFile(join("deploy", file), text);
 * }
 * ```
 */
export function operatorManifests(options: OperatorManifestOptions): Map<string, string> {
  const serviceAccount = { name: options.serviceAccountName ?? options.name, namespace: options.namespace };
  const permissions = [
    ...options.permissions,
    ...leasePermissions(options),
    // The manager's own pod, in the operator's namespace, gets events when an informer restarts.
    ...eventPermissions(options.namespace),
  ];
  const rbac = rbacFor(permissions, {
    name: options.name,
    serviceAccount,
    ...(options.watchNamespace === undefined ? {} : { namespace: options.watchNamespace }),
  });
  const metricsAuth = metricsAuthRbac({ name: options.name, serviceAccount });
  const webhooks = options.webhooks && {
    ...options.webhooks,
    name: options.name,
    namespace: options.namespace,
    selector: podLabels(options.name),
    ...(options.watchNamespace === undefined ? {} : { watchNamespace: options.watchNamespace }),
  };
  const caPermissions = webhooks ? webhookCaPermissions(webhooks) : [];
  const webhookCa =
    caPermissions.length > 0
      ? rolesWithBindings(rbacFor(caPermissions, { name: `${options.name}-webhook-ca`, serviceAccount }))
      : [];
  const files = new Map<string, string>();
  files.set("namespace.yaml", toYaml([namespaceManifest(options.namespace)]));
  if (options.kinds && options.kinds.length > 0) {
    const crds = options.kinds.map(crdFor);
    files.set(CRDS_FILE, toYaml(webhooks ? withConversions(crds, webhooks) : crds));
  }
  if (options.extras && options.extras.length > 0) files.set(EXTRAS_FILE, toYaml(options.extras));
  files.set(
    "serviceaccount.yaml",
    toYaml([serviceAccountManifest(serviceAccount.name, serviceAccount.namespace)]),
  );
  files.set(
    "rbac.yaml",
    toYaml([
      ...rolesWithBindings(rbac),
      ...rolesWithBindings(metricsAuth),
      ...webhookCa,
      metricsReaderRole(options.name),
      ...userRoles(options.name, options.kinds ?? []),
    ]),
  );
  const deployment = deploymentManifest(options);
  files.set(DEPLOYMENT_FILE, toYaml([deployment]));
  files.set(
    "metrics-service.yaml",
    toYaml([
      metricsServiceManifest({
        name: options.name,
        namespace: options.namespace,
        selector: podLabels(options.name),
        port: options.metricsPort,
      }),
    ]),
  );
  if (webhooks) files.set(WEBHOOKS_FILE, toYaml(webhookManifests(webhooks)));
  files.set("kustomization.yaml", kustomization([...files.keys()]));
  const monitoring = monitoringFiles(
    {
      name: options.name,
      namespace: options.namespace,
      job: metricsServiceName(options.name),
      webhooks: Boolean(webhooks),
      ...(options.sharding ? { sharded: { shards: options.sharding.shards } } : {}),
    },
    podLabels(options.name),
  );
  for (const [file, text] of monitoring) files.set(file, text);
  files.set("Dockerfile", dockerfile({ ports: containerPorts(deployment), ...options.dockerfile }));
  files.set("Dockerfile.dockerignore", dockerignore());
  return files;
}

/** The ports the Deployment's containers declare, which the Dockerfile documents with EXPOSE. */
function containerPorts(deployment: DeploymentObject): number[] {
  const containers = deployment.spec?.template.spec?.containers ?? [];
  return containers.flatMap((c) => (c.ports ?? []).map((p) => p.containerPort));
}

/** Each role followed by its binding. */
function rolesWithBindings(rbac: RbacObjects): unknown[] {
  return rbac.roles.flatMap((role, i) => [role, rbac.bindings[i]]);
}
