/**
 * Webhook configurations: URL client config with the CA for a local run, which requests they are
 * sent (the watched namespace, the operator's own objects left out only where they could be
 * caught), the refusal of a configuration that admits none of the watched namespaces, and
 * conversion patches for the CRDs.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type KubeObject, Pod, resourceType } from "../../../src/api/index.ts";
import {
  type AdmissionMatch,
  admissionConfigurations,
  type ConfigurationOptions,
  checkNamespacesAdmitted,
  conversion,
  conversionPatches,
  operatorLabels,
  validating,
  WebhookNamespaceError,
  webhookName,
} from "../../../src/webhook/index.ts";

const Thing = resourceType<KubeObject>("things.example.com/v2", "Thing", "things", false);
const thingCheck = validating(Thing, () => undefined, { failurePolicy: "Ignore" });
const Widget = resourceType<KubeObject>("widgets.example.com/v1", "Widget", "widgets", true);
const caPem = "-----BEGIN CERTIFICATE-----\n";
const options: ConfigurationOptions = {
  name: "dev",
  operator: "dev",
  endpoint: { url: "https://127.0.0.1:9443" },
  caPem,
};

/** The entry of the only webhook `admissionConfigurations` makes of `webhook` with `extra` options. */
function entryOf(webhook: ReturnType<typeof validating>, extra: Partial<ConfigurationOptions> = {}) {
  const [configuration] = admissionConfigurations([webhook], { ...options, ...extra });
  return configuration?.webhooks?.[0];
}

const name = "kubernetes.io/metadata.name";

describe("webhook configurations", () => {
  it("call a local server by URL, trusting the CA, and leave out an empty configuration", () => {
    const configurations = admissionConfigurations([thingCheck], options);
    assert.deepEqual(
      configurations.map((c) => c.kind),
      ["ValidatingWebhookConfiguration"],
    );
    const entry = configurations[0]?.webhooks?.[0];
    assert.deepEqual(entry?.clientConfig, {
      url: "https://127.0.0.1:9443/validate-things-example-com-v2-thing",
      caBundle: Buffer.from(caPem).toString("base64"),
    });
    assert.equal(entry?.failurePolicy, "Ignore");
    assert.equal(entry?.rules?.[0]?.scope, "Cluster");
  });

  it("name each webhook after its kind, version and group, qualified as the apiserver requires", () => {
    assert.equal(webhookName(thingCheck), "vthing-v2.things.example.com");
    assert.equal(webhookName(validating(ConfigMap, () => undefined)), "vconfigmap-v1.core.kubeloop.dev");
  });

  it("patch each converted kind's CRD with the Webhook strategy, ConversionReview v1 and /convert", () => {
    const versions = conversion(Thing, { hub: "v2", spokes: { v1: { toHub: (o) => o, fromHub: (o) => o } } });
    assert.deepEqual(conversionPatches([thingCheck, versions], options), [
      {
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: "things.things.example.com" },
        spec: {
          conversion: {
            strategy: "Webhook",
            webhook: {
              clientConfig: {
                url: "https://127.0.0.1:9443/convert",
                caBundle: Buffer.from(caPem).toString("base64"),
              },
              conversionReviewVersions: ["v1"],
            },
          },
        },
      },
    ]);
  });
});

describe("which requests a webhook is sent", () => {
  it("for a custom kind: every namespace's, the operator's own included, with no object left out", () => {
    const entry = entryOf(validating(Widget, () => undefined));
    assert.equal(entry?.namespaceSelector, undefined);
    assert.equal(entry?.objectSelector, undefined);
  });

  it("of an operator watching its own namespace: that namespace's, with nothing of it left out", () => {
    const entry = entryOf(
      validating(Widget, () => undefined),
      { watchNamespace: "dev" },
    );
    assert.deepEqual(entry?.namespaceSelector, {
      matchExpressions: [{ key: name, operator: "In", values: ["dev"] }],
    });
    assert.equal(entry?.objectSelector, undefined);
  });

  it("for a built-in kind: none from kube-system, and none about the operator's own objects", () => {
    const declared: AdmissionMatch = { objectSelector: { matchLabels: { tier: "web" } } };
    const entry = entryOf(
      validating(Pod, () => undefined, declared),
      { watchNamespace: "dev" },
    );
    assert.deepEqual(entry?.namespaceSelector, {
      matchExpressions: [
        { key: name, operator: "NotIn", values: ["kube-system"] },
        { key: name, operator: "In", values: ["dev"] },
      ],
    });
    assert.deepEqual(entry?.objectSelector, {
      matchExpressions: [
        { key: "kubeloop.dev/operator", operator: "NotIn", values: ["dev"] },
        { key: "tier", operator: "In", values: ["web"] },
      ],
    });
    assert.deepEqual(operatorLabels("dev"), { "kubeloop.dev/operator": "dev" });
  });

  it("within the session's and the declared namespace selectors too", () => {
    const declared = { namespaceSelector: { matchLabels: { team: "a" } } };
    const entry = entryOf(
      validating(Widget, () => undefined, declared),
      {
        namespaceSelector: { matchLabels: { session: "s1" } },
      },
    );
    assert.deepEqual(entry?.namespaceSelector, {
      matchExpressions: [
        { key: "session", operator: "In", values: ["s1"] },
        { key: "team", operator: "In", values: ["a"] },
      ],
    });
  });
});

describe("a configuration that admits none of the watched namespaces", () => {
  const refused: [string, ReturnType<typeof validating>, Partial<ConfigurationOptions>, RegExp][] = [
    [
      "a declared selector leaving out the watched namespace",
      validating(Widget, () => undefined, {
        namespaceSelector: { matchExpressions: [{ key: name, operator: "In", values: ["team-a"] }] },
      }),
      { watchNamespace: "team-b" },
      /vwidget-v1\.widgets\.example\.com is sent no request from namespace team-b, which the operator watches: its namespaceSelector wants kubernetes\.io\/metadata\.name In \[team-a\]; select team-b in its namespaceSelector \(or drop it\)$/,
    ],
    [
      "kube-system watched with a webhook for a built-in kind",
      validating(ConfigMap, () => undefined),
      { watchNamespace: "kube-system" },
      /from namespace kube-system.*webhooks for built-in kinds leave out kube-system.*watch another namespace/,
    ],
    [
      "a session selector leaving out the watched namespace",
      validating(Widget, () => undefined),
      {
        watchNamespace: "team-b",
        namespaceSelector: { matchExpressions: [{ key: name, operator: "NotIn", values: ["team-b"] }] },
      },
      /webhookServer\.namespaceSelector wants kubernetes\.io\/metadata\.name NotIn \[team-b\]/,
    ],
    [
      "selectors that no namespace name meets, for an operator watching every namespace",
      validating(Widget, () => undefined, { namespaceSelector: { matchLabels: { [name]: "a" } } }),
      { namespaceSelector: { matchLabels: { [name]: "b" } } },
      /from any namespace, though the operator watches every one: webhookServer.namespaceSelector wants .* In \[b\]; its namespaceSelector wants .* In \[a\]; select some namespace in webhookServer\.namespaceSelector, or select some namespace in its namespaceSelector/,
    ],
  ];
  for (const [what, webhook, scope, message] of refused) {
    it(`is refused: ${what}`, () => {
      for (const check of [
        () => admissionConfigurations([webhook], { ...options, ...scope }),
        () => checkNamespacesAdmitted([webhook], scope),
      ]) {
        assert.throws(check, (err) => {
          assert.ok(err instanceof WebhookNamespaceError, String(err));
          assert.equal(err.code, "KL_WEBHOOK_ADMITS_NOTHING");
          assert.match(err.message, message);
          return true;
        });
      }
    });
  }

  it("is not refused for what labels other than the name decide, nor for a cluster-scoped kind", () => {
    const labelled = validating(Widget, () => undefined, {
      namespaceSelector: { matchLabels: { team: "a" } },
    });
    assert.doesNotThrow(() => checkNamespacesAdmitted([labelled], { watchNamespace: "team-b" }));
    // A cluster-scoped object is sent whatever the namespace selector says.
    const other = { namespaceSelector: { matchLabels: { [name]: "elsewhere" } } };
    const things = [validating(Thing, () => undefined, other)];
    assert.doesNotThrow(() => checkNamespacesAdmitted(things, { watchNamespace: "team-b" }));
    const watched = { namespaceSelector: { matchExpressions: [{ key: name, operator: "Exists" }] } };
    assert.doesNotThrow(() => checkNamespacesAdmitted([validating(Widget, () => undefined, watched)], {}));
  });
});
