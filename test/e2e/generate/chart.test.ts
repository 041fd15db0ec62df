/**
 * Issue 31 item 8: the Helm chart `kubeloop generate --helm` writes for each reference operator
 * passes `helm lint`, and `helm template` renders, for its default values and for others, exactly
 * the objects `kubeloop generate` writes with the same settings (but the Namespace, which
 * `--create-namespace` makes), which the apiserver accepts (`kubectl apply --server-side
 * --dry-run=server`). Helm is built from its Go module into the kubeloop cache (`ensureHelm`), as
 * CI's `npm run controlplane:build` does.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { before, test } from "node:test";
import { promisify } from "node:util";
import { parseAllDocuments } from "yaml";
import loadtest from "../../../operators/loadtest/operator.ts";
import myproxy from "../../../operators/myproxy/operator.ts";
import { CustomResourceDefinition, type KubeObject } from "../../../src/api/index.ts";
import { NotFoundError } from "../../../src/client/index.ts";
import { ensureHelm } from "../../../src/cluster/helm.ts";
import { CRDS_FILE, helmChartOf, type ManifestOverrides, manifestsOf } from "../../../src/generate/index.ts";
import type { Operator } from "../../../src/operator/index.ts";
import {
  crdsEstablished,
  installOpenCrd,
  kubectl,
  onCleanup,
  testClient,
  testNamespace,
} from "../support.ts";

const run = promisify(execFile);
const fixtures = join(import.meta.dirname, "../../fixtures/crds");
let helm: string;

/**
 * The default `--webhook-certs cert-manager` renders an Issuer and a Certificate: the cluster needs
 * cert-manager's API (not cert-manager itself) for the dry run. The Certificate's CRD is
 * cert-manager's own (a fixture), so the chart's Certificate is checked against its schema; the
 * Issuer's is a stand-in that accepts any spec.
 */
async function installCertManagerApi(): Promise<void> {
  await kubectl(["apply", "--server-side", "--force-conflicts", "-f", join(fixtures, "certificates.yaml")]);
  await crdsEstablished(["certificates.cert-manager.io"]);
  await installOpenCrd("cert-manager.io", "Issuer", "issuers");
}

before(async () => {
  helm = await ensureHelm();
  await installCertManagerApi();
});

/** The objects of YAML documents. */
function objectsOf(texts: readonly string[]): KubeObject[] {
  return texts
    .flatMap((text) => parseAllDocuments(text).map((doc) => doc.toJS() as KubeObject | null))
    .filter((object): object is KubeObject => object !== null);
}

/** Objects in a stable order: by kind, namespace and name. */
function sorted(objects: readonly KubeObject[]): KubeObject[] {
  const key = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
  return [...objects].sort((a, b) => key(a).localeCompare(key(b)));
}

/** What `kubeloop generate` writes for the cluster with `overrides`, as the chart installs it. */
async function generated(operator: Operator, overrides: ManifestOverrides): Promise<KubeObject[]> {
  const files = await manifestsOf(operator, overrides);
  const installed = ["serviceaccount.yaml", "rbac.yaml", "deployment.yaml", "metrics-service.yaml"];
  const texts = [...files].filter(
    ([name]) => installed.includes(name) || /^(extras|webhooks)\.yaml$/.test(name),
  );
  const crds = objectsOf([files.get(CRDS_FILE) ?? ""]).map((crd) => ({
    ...crd,
    metadata: {
      ...crd.metadata,
      annotations: { ...crd.metadata.annotations, "helm.sh/resource-policy": "keep" },
    },
  }));
  return sorted([...objectsOf(texts.map(([, text]) => text)), ...crds]);
}

const cases: { operator: Operator; values: Record<string, string>; overrides: ManifestOverrides }[] = [
  { operator: myproxy, values: {}, overrides: {} },
  {
    operator: myproxy,
    values: { "webhooks.certificates": "self", replicas: "2" },
    overrides: { webhookCerts: "self", replicas: 2 },
  },
  { operator: loadtest, values: {}, overrides: {} },
  {
    operator: loadtest,
    values: { "sharding.enabled": "true", "sharding.shards": "8", replicas: "3" },
    overrides: { sharding: { shards: 8 }, replicas: 3 },
  },
];

for (const { operator, values, overrides } of cases) {
  const settings = Object.entries(values).map(([k, v]) => `${k}=${v}`);
  test(`${operator.name}'s chart (${settings.join(", ") || "default values"}) lints, renders what generate writes, and the apiserver accepts it`, async (t) => {
    const namespace = await testNamespace(t);
    const chart = await mkdtemp(join(tmpdir(), "kubeloop-chart-"));
    onCleanup(t, () => rm(chart, { recursive: true, force: true }));
    for (const [name, text] of await helmChartOf(operator)) {
      await mkdir(dirname(join(chart, name)), { recursive: true });
      await writeFile(join(chart, name), text);
    }
    const set = settings.flatMap((setting) => ["--set", setting]);
    await run(helm, ["lint", "--strict", chart, ...set]);
    const { stdout } = await run(helm, ["template", operator.name, chart, "--namespace", namespace, ...set], {
      maxBuffer: 64 << 20,
    });

    const rendered = objectsOf([stdout]);
    assert.deepEqual(sorted(rendered), await generated(operator, { ...overrides, namespace }));
    await dryRun(rendered);
  });
}

/**
 * Asks the apiserver to accept `objects` without keeping them: a server-side apply, but for the
 * CRDs already in the cluster a replace at their resourceVersion. The run's conversion host has set
 * a `url` on the reference operators' CRDs, which an apply would merge with the chart's `service`
 * (two endpoints, invalid); a replace checks the chart's CRD whole, as a fresh install has it.
 * `--force-conflicts`: the CRDs and webhook configurations are cluster-scoped, and other tests of
 * the run apply them under other field managers; a dry run changes nothing.
 */
async function dryRun(objects: readonly KubeObject[]): Promise<void> {
  const client = await testClient();
  const replaced: KubeObject[] = [];
  for (const object of objects.filter((o) => o.kind === CustomResourceDefinition.kind)) {
    const installed = await client
      .get(CustomResourceDefinition, String(object.metadata.name))
      .catch((err: unknown) => {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      });
    if (installed)
      replaced.push({
        ...object,
        metadata: { ...object.metadata, resourceVersion: installed.metadata.resourceVersion },
      });
  }
  const applied = objects.filter(
    (o) => !replaced.some((r) => r.metadata.name === o.metadata.name && r.kind === o.kind),
  );
  const list = (items: readonly KubeObject[]) => JSON.stringify({ apiVersion: "v1", kind: "List", items });
  await kubectl(["apply", "--server-side", "--force-conflicts", "--dry-run=server", "-f", "-"], {
    input: list(applied),
  });
  if (replaced.length > 0)
    await kubectl(["replace", "--dry-run=server", "-f", "-"], { input: list(replaced) });
}
