/**
 * `kubeloop generate`, `kubeloop install` and `kubeloop run`: the commands that act on an operator
 * project's declared operator (its `src/operator.ts` default export).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import { Client, type LoadConfigOptions } from "../client/index.ts";
import {
  CRDS_FILE,
  declarationWarnings,
  EXTRAS_FILE,
  helmChartOf,
  type ManifestOverrides,
  MONITORING_DIR,
  manifestsOf,
  operatorImage,
  type WebhookCertificates,
} from "../generate/index.ts";
import {
  type EndpointFlagValues,
  endpointFlags,
  endpointOptions,
  shardingFlags,
  shardingOptions,
} from "../manager/index.ts";
import {
  installOperator,
  loadOperator,
  migrateStoredVersions,
  type Operator,
  runOperator,
  staleStoredVersions,
} from "../operator/index.ts";
import { localPackagesOf } from "./image-build.ts";

const operatorOption = () =>
  new Option("--operator <file>", "the operator module (default export of defineOperator)").default(
    "src/operator.ts",
  );

/** Where `--helm` writes the chart, under `--out`. */
const CHART_DIR = "chart";

async function generate(opts: {
  operator: string;
  out: string;
  image?: string;
  namespace?: string;
  replicas?: string;
  shards?: string;
  shardKey?: string;
  webhookCerts: WebhookCertificates;
  helm?: boolean;
}): Promise<void> {
  const operator = await loadOperator(opts.operator);
  const packages = localPackagesOf(process.cwd());
  const sharding = shardingOptions(opts);
  const overrides: ManifestOverrides = {
    image: opts.image,
    namespace: opts.namespace,
    dockerfile: { localPackages: packages.inside },
    replicas: replicaCount(opts.replicas),
    ...(sharding ? { sharding: { shards: sharding.shards ?? 32, key: sharding.key } } : {}),
    webhookCerts: opts.webhookCerts,
  };
  const files = await manifestsOf(operator, overrides);
  if (opts.helm) {
    for (const [name, text] of await helmChartOf(operator, overrides)) files.set(join(CHART_DIR, name), text);
  }
  const warnings = [...(await declarationWarnings(operator)), ...packages.unreachable];
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  for (const [name, text] of files) {
    mkdirSync(dirname(join(opts.out, name)), { recursive: true });
    writeFileSync(join(opts.out, name), text);
  }
  process.stdout.write(`Wrote ${[...files.keys()].map((f) => join(opts.out, f)).join(", ")}\n`);
  const namespace = opts.namespace ?? operator.definition.namespace ?? operator.name;
  process.stdout.write(
    nextSteps({
      out: opts.out,
      image: operatorImage(operator, opts.image),
      files: [...files.keys()],
      certManager: Boolean(operator.definition.webhooks?.length) && opts.webhookCerts === "cert-manager",
      chart: opts.helm ? { release: operator.name, namespace } : undefined,
    }),
  );
}

/** The Deployment's replicas from `--replicas`: a whole number from 1. */
function replicaCount(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1)
    throw new InvalidArgumentError("--replicas: give a whole number from 1.");
  return count;
}

/** What {@link nextSteps} prints the steps of. */
export interface Written {
  out: string;
  image: string;
  files: readonly string[];
  /** The webhooks' certificate comes from cert-manager, which the cluster must have first. */
  certManager: boolean;
  /** The chart `--helm` wrote, and the release and namespace to install it as. */
  chart: { release: string; namespace: string } | undefined;
}

/**
 * How to install the CRDs (and extras), build the image and deploy, once the files are written;
 * first, when the webhooks' certificate comes from cert-manager, how to install cert-manager or do
 * without it.
 */
export function nextSteps({ out, image, files, certManager, chart }: Written): string {
  const installed = [CRDS_FILE, EXTRAS_FILE].filter((file) => files.includes(file));
  const applied = installed.map((file) => `-f ${join(out, file)}`).join(" ");
  return [
    "",
    ...(certManager
      ? [
          "cert-manager:      the webhooks' certificate (--webhook-certs cert-manager, the default) needs cert-manager in the cluster:",
          `                   kubectl apply -f ${CERT_MANAGER_MANIFEST}`,
          '                   (without it the deploy fails: no matches for kind "Certificate" in version "cert-manager.io/v1");',
          "                   or generate with --webhook-certs self: the operator makes the certificate itself",
        ]
      : []),
    `Install the CRDs:  kubeloop install   (or kubectl apply --server-side ${applied})`,
    `Build the image:   docker build -f ${join(out, "Dockerfile")} -t ${image} .`,
    `Load or push it:   kind load docker-image ${image}   (a local cluster; else docker push ${image})`,
    `Deploy:            kubectl apply --server-side -k ${out}`,
    ...(chart
      ? [
          `  or with Helm:    helm install ${chart.release} ${join(out, CHART_DIR)} --namespace ${chart.namespace} --create-namespace   (values: ${join(out, CHART_DIR, "values.yaml")})`,
        ]
      : []),
    `Monitor:           kubectl apply --server-side -k ${join(out, MONITORING_DIR)}   (with the Prometheus Operator; else load ${join(out, MONITORING_DIR, "alerts.yaml")} into Prometheus, import ${join(out, MONITORING_DIR, "dashboard.json")} into Grafana)`,
    "",
  ].join("\n");
}

/** cert-manager's release manifest, as its installation guide gives it. */
const CERT_MANAGER_MANIFEST =
  "https://github.com/cert-manager/cert-manager/releases/latest/download/cert-manager.yaml";

/** Where the cluster commands connect: `--kubeconfig` and `--context`, else KUBECONFIG or in-cluster. */
export interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
}

/**
 * Applies the operator's CRDs and the other objects it ships, and prints each CRD once Established,
 * then each object once applied.
 */
async function installOperatorObjects(operator: Operator, config: LoadConfigOptions): Promise<void> {
  if (operator.kinds.length === 0 && !operator.definition.manifests) {
    process.stdout.write(`The operator ${operator.name} declares no kinds: no CRDs to install.\n`);
    return;
  }
  const client = await Client.load(config, { fieldManager: "kubeloop" });
  try {
    const { crds, manifests } = await installOperator(client, operator);
    for (const crd of crds) {
      const versions = crd.spec.versions.filter((v) => v.served).map((v) => `${crd.spec.group}/${v.name}`);
      process.stdout.write(
        `Established ${crd.metadata.name} (${crd.spec.names.kind}: ${versions.join(", ")})\n`,
      );
      if (staleStoredVersions(crd).length > 0) {
        const storage = crd.spec.versions.find((v) => v.storage)?.name;
        process.stdout.write(
          `  objects may still be stored in ${crd.status?.storedVersions?.join(", ")}: once the operator serves, ` +
            `\`kubeloop migrate\` rewrites them in ${storage}\n`,
        );
      }
    }
    for (const object of manifests) process.stdout.write(`Applied ${object.kind} ${object.metadata.name}\n`);
  } finally {
    await client.close();
  }
}

async function install(opts: ClusterFlags & { operator: string }): Promise<void> {
  await installOperatorObjects(await loadOperator(opts.operator), opts);
}

/** Rewrites the objects of each of the operator's kinds in its storage version (see `migrateStoredVersions`). */
async function migrate(opts: ClusterFlags & { operator: string }): Promise<void> {
  const operator = await loadOperator(opts.operator);
  const client = await Client.load(opts, { fieldManager: "kubeloop" });
  try {
    for (const kind of operator.kinds) {
      const { crd, storage, storedBefore, rewritten } = await migrateStoredVersions(client, kind);
      process.stdout.write(
        rewritten === 0 && storedBefore.every((v) => v === storage)
          ? `${crd}: only ${storage} is stored, nothing to migrate\n`
          : `Migrated ${crd} to ${storage}: ${rewritten} objects rewritten; storedVersions ${storedBefore.join(", ")} → ${storage}\n`,
      );
    }
  } finally {
    await client.close();
  }
}

async function run(
  opts: EndpointFlagValues &
    ClusterFlags & {
      operator: string;
      namespace?: string;
      leaderElect: boolean;
      installCrds?: boolean;
      shards?: string;
      shardKey?: string;
    },
): Promise<void> {
  const operator = await loadOperator(opts.operator);
  const config = { kubeconfig: opts.kubeconfig, context: opts.context };
  if (opts.installCrds) await installOperatorObjects(operator, config);
  await runOperator(operator, {
    config,
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.leaderElect ? {} : { leaderElection: false }),
    sharding: shardingOptions(opts) ?? false,
    ...endpointOptions(opts),
  });
}

/**
 * `--leader-elect[=true|false]`, as the Go boolean flag of kubebuilder's `main.go` reads. On by
 * default in a cluster (`KUBERNETES_SERVICE_HOST` set), off outside one: kubebuilder's flag defaults
 * to false and its Deployment turns it on; a developer's cluster seldom has the Lease's namespace.
 */
const leaderElectOption = () =>
  new Option(
    "--leader-elect [bool]",
    "campaign for the operator's Lease and reconcile only while leading (default: on in a cluster, off outside one)",
  )
    .default(Boolean(process.env.KUBERNETES_SERVICE_HOST), "on in a cluster")
    .argParser((value: string) => {
      if (value !== "true" && value !== "false") throw new InvalidArgumentError("give true or false.");
      return value === "true";
    });

/** Declares `--kubeconfig` and `--context` ({@link ClusterFlags}) on `command`. */
export function withClusterFlags(command: Command): Command {
  return command
    .option("--kubeconfig <file>", "kubeconfig to use instead of KUBECONFIG or ~/.kube/config")
    .option("--context <name>", "kubeconfig context");
}

/** Declares the manager's endpoint flags (kubebuilder's names) and sharding flags on `command`. */
function withEndpointFlags(command: Command): Command {
  for (const flag of [...endpointFlags, ...shardingFlags]) {
    command.option(flag.value ? `--${flag.name} ${flag.value}` : `--${flag.name}`, flag.description);
    if (!flag.value) command.option(`--no-${flag.name}`, `the opposite of --${flag.name}`);
  }
  return command;
}

/** The `generate` command. */
export function generateCommand(): Command {
  return new Command("generate")
    .description(
      "write CRDs, RBAC and deployment manifests (plus a Dockerfile), a Grafana dashboard and Prometheus alert rules derived from the project's operator",
    )
    .addOption(operatorOption())
    .option("--out <dir>", "output directory", "config")
    .option("--image <image>", "operator image for the Deployment")
    .option("--namespace <ns>", "namespace the operator is deployed to")
    .option(
      "--replicas <n>",
      "replicas of the Deployment (default 1; more with leader election, or with --shards)",
    )
    .option(
      "--shards <n>",
      "shard the controllers across the replicas over n virtual shards (the container's --shards, Lease list permission)",
    )
    .option(
      "--shard-key <namespace|uid>",
      "what places an object in a shard, with --shards (default namespace)",
    )
    .addOption(
      new Option(
        "--webhook-certs <maker>",
        "who makes the webhook serving certificate: cert-manager (installed in the cluster) or self (the operator makes one from a CA its replicas share in a Secret, and patches the CA in)",
      )
        .choices(["cert-manager", "self"])
        .default("cert-manager"),
    )
    .option(
      "--helm",
      `also write a Helm chart of the same manifests to <out>/${CHART_DIR} (values: image, replicas, resources, sharding, the webhooks' certificate maker, metrics)`,
    )
    .action(generate);
}

/** The `install` command. */
export function installCommand(): Command {
  const command = new Command("install")
    .description(
      "apply the CRDs of the project's operator (server-side apply), wait until the apiserver serves them, then apply the other objects it ships",
    )
    .addOption(operatorOption());
  return withClusterFlags(command).action(install);
}

/** The `migrate` command. */
export function migrateCommand(): Command {
  const command = new Command("migrate")
    .description(
      "after a kind's storage version changed: rewrite its objects in the new storage version (read through the conversion webhook, so the operator must serve), then trim the CRD's status.storedVersions to it",
    )
    .addOption(operatorOption());
  return withClusterFlags(command).action(migrate);
}

/** The `run` command. */
export function runCommand(): Command {
  const command = new Command("run")
    .description(
      "run the project's operator against the current kubeconfig (or in-cluster config) until Ctrl-C",
    )
    .addOption(operatorOption())
    .option("--namespace <ns>", "watch only this namespace")
    .option(
      "--install-crds",
      "apply the operator's CRDs and wait until they are served, then the other objects it ships, before running",
    )
    .addOption(leaderElectOption())
    .option("--no-leader-elect", "the same as --leader-elect=false");
  return withEndpointFlags(withClusterFlags(command)).action(run);
}
