/** `conversion`: hub and spokes, identity, metadata, and lossless round trips through a spoke that lacks fields. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { z } from "zod";
import { ConfigMap, type KubeObject } from "../../../src/api/index.ts";
import { defineKind } from "../../../src/schema/index.ts";
import {
  CONVERSION_DATA_ANNOTATION,
  ConversionError,
  conversion,
  restoreFields,
  stashFields,
  WebhookDeclarationError,
} from "../../../src/webhook/index.ts";

interface ProxyV1 extends KubeObject {
  spec: { hostname: string; tls?: { secretName: string } };
}
interface ProxyV1alpha1 extends KubeObject {
  spec: { host: string };
}
interface ProxyV1beta1 extends KubeObject {
  spec: { hostname: string; tlsSecret?: string };
}

const v1Spec = z.object({ hostname: z.string(), tls: z.object({ secretName: z.string() }).optional() });
const Gateway = defineKind({
  group: "proxy.example.com",
  version: "v1",
  kind: "Proxy",
  scope: "Namespaced",
  spec: v1Spec,
  versions: [
    { name: "v1alpha1", spec: z.object({ host: z.string() }) },
    { name: "v1beta1", spec: z.object({ hostname: z.string(), tlsSecret: z.string().optional() }) },
  ],
});

const spokes = {
  v1alpha1: {
    toHub: (old: ProxyV1alpha1): ProxyV1 => ({ ...old, spec: { hostname: old.spec.host } }),
    fromHub: (hub: ProxyV1): ProxyV1alpha1 => ({ ...hub, spec: { host: hub.spec.hostname } }),
    lacks: ["spec.tls"],
  },
  v1beta1: {
    toHub: ({ spec: { hostname, tlsSecret }, ...rest }: ProxyV1beta1): ProxyV1 => ({
      ...rest,
      spec: { hostname, ...(tlsSecret && { tls: { secretName: tlsSecret } }) },
    }),
    fromHub: ({ spec: { hostname, tls }, ...rest }: ProxyV1): ProxyV1beta1 => ({
      ...rest,
      spec: { hostname, ...(tls && { tlsSecret: tls.secretName }) },
    }),
  },
};
const proxyConversion = conversion<ProxyV1>(Gateway, { spokes });

const metadata = { name: "edge", namespace: "ns", uid: "u-1", resourceVersion: "7", labels: { app: "edge" } };
const hub: ProxyV1 = {
  apiVersion: "proxy.example.com/v1",
  kind: "Proxy",
  metadata,
  spec: { hostname: "edge.example.com", tls: { secretName: "edge-tls" } },
};

describe("conversion declarations", () => {
  it("take the storage version as the hub unless told", () => {
    assert.equal(proxyConversion.hub, "v1");
    assert.equal(proxyConversion.path, "/convert");
  });

  const refused: [string, () => unknown, RegExp][] = [
    [
      "a version the kind lacks",
      () => conversion(Gateway, { spokes: { ...spokes, v2: spokes.v1beta1 } }),
      /no version v2/,
    ],
    [
      "a served version without a spoke",
      () => conversion(Gateway, { spokes: { v1alpha1: spokes.v1alpha1 } }),
      /v1beta1 is served but has no spoke/,
    ],
    [
      "the hub as a spoke",
      () => conversion(Gateway, { hub: "v1beta1", spokes }),
      /hub v1beta1 is also a spoke/,
    ],
    [
      "no hub for a kind that lists no versions",
      () => conversion(ConfigMap, { spokes: {} }),
      /no hub version/,
    ],
  ];
  for (const [what, declare, message] of refused) {
    it(`refuse ${what}`, () => {
      assert.throws(declare, (err) => err instanceof WebhookDeclarationError && message.test(err.message));
    });
  }
});

describe("converting", () => {
  it("returns an object already in the desired version as it is", () => {
    assert.equal(proxyConversion.convert(hub, "proxy.example.com/v1"), hub);
  });

  it("converts the hub to a spoke, keeping what the spoke lacks in an annotation", () => {
    const spoke = proxyConversion.convert(hub, "proxy.example.com/v1alpha1") as ProxyV1alpha1;
    assert.deepEqual(spoke, {
      apiVersion: "proxy.example.com/v1alpha1",
      kind: "Proxy",
      metadata: {
        ...metadata,
        annotations: {
          [CONVERSION_DATA_ANNOTATION]: JSON.stringify({ "spec.tls": { secretName: "edge-tls" } }),
        },
      },
      spec: { host: "edge.example.com" },
    });
  });

  it("round-trips hub → spoke → hub without loss, and spoke → hub → spoke too", () => {
    const spoke = proxyConversion.convert(hub, "proxy.example.com/v1alpha1");
    assert.deepEqual(proxyConversion.convert(spoke, "proxy.example.com/v1"), hub);
    const back = proxyConversion.convert(
      proxyConversion.convert(spoke, "proxy.example.com/v1"),
      "proxy.example.com/v1alpha1",
    );
    assert.deepEqual(back, spoke);
  });

  it("keeps a change made in the spoke and restores only the fields the spoke lacks", () => {
    const spoke = proxyConversion.convert(hub, "proxy.example.com/v1alpha1") as ProxyV1alpha1;
    const edited = { ...spoke, spec: { host: "new.example.com" } };
    assert.deepEqual(proxyConversion.convert(edited, "proxy.example.com/v1"), {
      ...hub,
      spec: { hostname: "new.example.com", tls: { secretName: "edge-tls" } },
    });
  });

  it("goes spoke → hub → spoke between two spokes", () => {
    const alpha = proxyConversion.convert(hub, "proxy.example.com/v1alpha1");
    assert.deepEqual(proxyConversion.convert(alpha, "proxy.example.com/v1beta1"), {
      apiVersion: "proxy.example.com/v1beta1",
      kind: "Proxy",
      metadata,
      spec: { hostname: "edge.example.com", tlsSecret: "edge-tls" },
    });
  });

  it("keeps the input's metadata but for the labels and annotations a converter sets", () => {
    const mangling = conversion<ProxyV1>(Gateway, {
      spokes: {
        ...spokes,
        v1beta1: {
          toHub: spokes.v1beta1.toHub,
          fromHub: (h: ProxyV1) => ({
            ...spokes.v1beta1.fromHub(h),
            metadata: { name: "other", labels: { v: "beta" } },
          }),
        },
      },
    });
    const beta = mangling.convert(hub, "proxy.example.com/v1beta1");
    assert.deepEqual(beta.metadata, { ...metadata, labels: { v: "beta" } });
  });

  it("fails with the object, the versions and the converter's error when a converter throws", () => {
    const failing = conversion<ProxyV1>(Gateway, {
      spokes: {
        ...spokes,
        v1beta1: {
          toHub: () => {
            throw new Error("hostname missing");
          },
          fromHub: spokes.v1beta1.fromHub,
        },
      },
    });
    const beta = { ...hub, apiVersion: "proxy.example.com/v1beta1" };
    assert.throws(
      () => failing.convert(beta, "proxy.example.com/v1"),
      (err) =>
        err instanceof ConversionError &&
        err.message ===
          "converting Proxy.proxy.example.com ns/edge from proxy.example.com/v1beta1 to proxy.example.com/v1: hostname missing",
    );
  });

  it("refuses an unknown version or another group", () => {
    assert.throws(
      () => proxyConversion.convert(hub, "proxy.example.com/v2"),
      /has no version v2: it converts v1, v1alpha1, v1beta1/,
    );
    assert.throws(() => proxyConversion.convert(hub, "other.example.com/v1alpha1"), ConversionError);
  });
});

describe("conversion data helpers", () => {
  const spoke: KubeObject = {
    apiVersion: "proxy.example.com/v1alpha1",
    kind: "Proxy",
    metadata: { name: "edge", annotations: { keep: "me" } },
  };

  it("stash nothing when the hub has none of the fields, and keep other annotations", () => {
    const plain: ProxyV1 = { ...hub, spec: { hostname: "h" } };
    const stashed = stashFields(spoke, plain, ["spec.tls"], plain);
    assert.deepEqual(stashed.metadata.annotations, { keep: "me" });
  });

  it("restore nested fields into a hub that lacks their parents, dropping the annotation", () => {
    const shown = { ...hub, spec: { hostname: hub.spec.hostname } };
    const stashed = stashFields(spoke, hub, ["spec.tls.secretName"], shown);
    const restored = restoreFields({ ...hub, spec: {} } as unknown as ProxyV1, stashed, [
      "spec.tls.secretName",
    ]);
    assert.deepEqual(restored.spec, { tls: { secretName: "edge-tls" } });
    assert.deepEqual(restored.metadata, metadata);
  });

  it("refuse an annotation that is not JSON", () => {
    const broken = {
      ...spoke,
      metadata: { name: "edge", annotations: { [CONVERSION_DATA_ANNOTATION]: "{" } },
    };
    assert.throws(
      () => restoreFields(hub, broken, ["spec.tls"]),
      (err) => err instanceof ConversionError && /is not JSON/.test(err.message),
    );
  });
});
