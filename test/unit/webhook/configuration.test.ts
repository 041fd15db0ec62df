/** Webhook configurations for a local run: URL client config with the CA, and conversion patches for the CRDs. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigMap, type KubeObject, resourceType } from "../../../src/api/index.ts";
import {
  admissionConfigurations,
  conversion,
  conversionPatches,
  validating,
  webhookName,
} from "../../../src/webhook/index.ts";

const Thing = resourceType<KubeObject>("things.example.com/v2", "Thing", "things", false);
const thingCheck = validating(Thing, () => undefined, { failurePolicy: "Ignore" });
const options = {
  name: "dev",
  endpoint: { url: "https://127.0.0.1:9443" },
  caPem: "-----BEGIN CERTIFICATE-----\n",
  excludedNamespaces: ["kube-system", "dev"],
};

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
      caBundle: Buffer.from(options.caPem).toString("base64"),
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
                caBundle: Buffer.from(options.caPem).toString("base64"),
              },
              conversionReviewVersions: ["v1"],
            },
          },
        },
      },
    ]);
  });
});
