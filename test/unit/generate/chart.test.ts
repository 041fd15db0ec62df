/**
 * The Helm chart `kubeloop generate --helm` writes: which files it holds, that its templates branch
 * only on the values that change a file, that every stand-in is replaced by a value or the
 * release's namespace, that text of the operator's own which looks like a template stays text, and
 * that the values' defaults are the settings generate was given. (Helm itself renders and lints
 * the chart in test/e2e/generate/chart.test.ts.)
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { ConfigMap } from "../../../src/api/index.ts";
import { imageParts } from "../../../src/generate/chart-values.ts";
import { helmChart, type OperatorManifestOptions } from "../../../src/generate/index.ts";
import { validating } from "../../../src/webhook/index.ts";
import { Thing, thingVersions } from "../webhook/support.ts";

const base: OperatorManifestOptions = {
  name: "things",
  namespace: "things-system",
  image: "registry.example.com/things:v1.2.0",
  kinds: [Thing],
  permissions: [],
};
const withWebhooks: OperatorManifestOptions = {
  ...base,
  webhooks: {
    webhooks: [validating(Thing, () => undefined), thingVersions],
    certificates: "cert-manager",
  },
};

describe("helmChart", () => {
  it("holds Chart.yaml, values, their schema and the cluster's manifests as templates, without the Namespace or kustomizations", () => {
    const files = [...helmChart(withWebhooks).keys()].sort();
    assert.deepEqual(files, [
      "Chart.yaml",
      "templates/crds.yaml",
      "templates/deployment.yaml",
      "templates/metrics-service.yaml",
      "templates/monitoring/prometheusrule.yaml",
      "templates/monitoring/servicemonitor.yaml",
      "templates/rbac.yaml",
      "templates/serviceaccount.yaml",
      "templates/webhooks.yaml",
      "values.schema.json",
      "values.yaml",
    ]);
    assert.deepEqual(parse(helmChart(base).get("Chart.yaml") as string), {
      apiVersion: "v2",
      name: "things",
      description: "The things operator, deployed as `kubeloop generate` deploys it.",
      type: "application",
      version: "0.1.0",
      appVersion: "v1.2.0",
    });
  });

  it("branches a template only on the values that change it", () => {
    const chart = helmChart(withWebhooks);
    const deployment = chart.get("templates/deployment.yaml") as string;
    assert.match(
      deployment,
      /^\{\{- if and \(not \.Values\.sharding\.enabled\) \(eq \.Values\.webhooks\.certificates "cert-manager"\) \}\}$/m,
    );
    assert.equal(deployment.match(/^\{\{- (if|else if|else) /gm)?.length, 4, "one branch per combination");
    assert.match(deployment, /--shards=\{\{ \.Values\.sharding\.shards \}\}/);
    assert.match(deployment, /--shard-key=\{\{ \.Values\.sharding\.key \}\}/);
    // cert-manager's objects or the self-managed ones, whatever the sharding.
    const webhooks = chart.get("templates/webhooks.yaml") as string;
    assert.match(webhooks, /^\{\{- if eq \.Values\.webhooks\.certificates "cert-manager" \}\}$/m);
    assert.doesNotMatch(webhooks, /sharding/);
    assert.doesNotMatch(chart.get("templates/serviceaccount.yaml") as string, /\{\{-? if/);
    assert.match(chart.get("templates/crds.yaml") as string, /^\{\{- if \.Values\.crd\.enable \}\}$/m);
  });

  it("puts the release's namespace, the image, replicas and resources in place of what generate was given", () => {
    const chart = helmChart({ ...withWebhooks, replicas: 3 });
    const text = [...chart.values()].join("\n");
    assert.doesNotMatch(text, /kl-release-namespace|kl-chart-image|7000001|7000002|things-system/);
    const deployment = chart.get("templates/deployment.yaml") as string;
    assert.match(deployment, /^ {2}namespace: \{\{ \.Release\.Namespace \}\}$/m);
    assert.match(
      deployment,
      /image: "\{\{ \.Values\.image\.repository \}\}\{\{ with \.Values\.image\.tag \}\}:\{\{ \. \}\}\{\{ end \}\}"/,
    );
    assert.match(deployment, /^ {2}replicas: \{\{ \.Values\.replicas \}\}$/m);
    assert.match(deployment, /^ {10}resources: \{\{- toYaml \.Values\.resources \| nindent 12 \}\}$/m);
    assert.doesNotMatch(deployment, /requests:|limits:/);
    assert.match(
      chart.get("templates/webhooks.yaml") as string,
      /things-webhook-service\.\{\{ \.Release\.Namespace \}\}\.svc/,
    );
    // RBAC rules name their resources as lists: only the container's resources become the value.
    assert.match(chart.get("templates/rbac.yaml") as string, /resources:\n\s+- things/);
  });

  it("keeps the CRDs when the release is uninstalled", () => {
    const crds = helmChart(base).get("templates/crds.yaml") as string;
    assert.equal(crds.match(/helm\.sh\/resource-policy: keep/g)?.length, 1);
  });

  it("leaves text of the operator's that looks like a template as text", () => {
    const note = {
      apiVersion: ConfigMap.apiVersion,
      kind: ConfigMap.kind,
      metadata: { name: "things-note" },
      data: { greeting: "{{ .Name }} says hi" },
    };
    const extras = helmChart({ ...base, extras: [note] }).get("templates/extras.yaml") as string;
    assert.equal(extras.match(/\{\{/g)?.length, 2, "only the escape's action");
    // Helm renders the escape `{{ "{{" }}` as `{{`: the ConfigMap comes out as the operator wrote it.
    assert.deepEqual(parse(extras.replaceAll('{{ "{{" }}', "{{")), note);
  });

  it("defaults the values to generate's settings", () => {
    const values = (options: OperatorManifestOptions) =>
      parse(helmChart(options).get("values.yaml") as string);
    assert.deepEqual(values(base), {
      image: { repository: "registry.example.com/things", tag: "v1.2.0", pullPolicy: "IfNotPresent" },
      replicas: 1,
      resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "256Mi" } },
      sharding: { enabled: false, shards: 32, key: "namespace" },
      metrics: { enabled: true },
      prometheus: { enabled: false },
      crd: { enable: true },
    });
    const tuned = values({
      ...withWebhooks,
      replicas: 2,
      sharding: { shards: 8, key: "uid" },
      webhooks: { ...withWebhooks.webhooks!, certificates: "self" },
    });
    assert.equal(tuned.replicas, 2);
    assert.deepEqual(tuned.sharding, { enabled: true, shards: 8, key: "uid" });
    assert.deepEqual(tuned.webhooks, { certificates: "self" });
    const schema = JSON.parse(helmChart(withWebhooks).get("values.schema.json") as string);
    assert.deepEqual(schema.properties.webhooks.properties.certificates.enum, ["cert-manager", "self"]);
    assert.equal(
      JSON.parse(helmChart(base).get("values.schema.json") as string).properties.webhooks,
      undefined,
    );
  });
});

describe("imageParts", () => {
  it("splits a tag off, but not a registry's port or a digest", () => {
    assert.deepEqual(imageParts("things:latest"), { repository: "things", tag: "latest" });
    assert.deepEqual(imageParts("localhost:5000/things"), { repository: "localhost:5000/things", tag: "" });
    assert.deepEqual(imageParts("localhost:5000/things:v1"), {
      repository: "localhost:5000/things",
      tag: "v1",
    });
    assert.deepEqual(imageParts("things@sha256:abc"), { repository: "things@sha256:abc", tag: "" });
  });
});
