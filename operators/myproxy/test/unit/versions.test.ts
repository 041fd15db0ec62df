/** MyProxy's conversion between v1alpha1 and v1beta1, without an apiserver. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { CONVERSION_DATA_ANNOTATION } from "kubeloop/webhook";
import type { MyProxyObject, MyProxyV1alpha1Object } from "../../api.ts";
import { myProxyConversion } from "../../versions.ts";

const metadata = { name: "edge", namespace: "web", uid: "u1", resourceVersion: "7", labels: { team: "a" } };
const status = { readyReplicas: 2, conditions: [] };

const old: MyProxyV1alpha1Object = {
  apiVersion: "proxy.kubeloop.dev/v1alpha1",
  kind: "MyProxy",
  metadata,
  spec: { replicas: 2, image: "nginx:1.27.3-alpine", port: 8080 },
  status,
};

const current: MyProxyObject = {
  apiVersion: "proxy.kubeloop.dev/v1beta1",
  kind: "MyProxy",
  metadata,
  spec: {
    replicas: 3,
    nginx: { image: "nginx:1.27.3-alpine", port: 80, resources: { limits: { memory: "64Mi" } } },
  },
  status,
};

test("v1alpha1 converts to v1beta1, the image and port under spec.nginx, and back unchanged", () => {
  const hub = myProxyConversion.convert(old, "proxy.kubeloop.dev/v1beta1");
  assert.deepEqual(hub, {
    ...old,
    apiVersion: "proxy.kubeloop.dev/v1beta1",
    spec: { replicas: 2, nginx: { image: "nginx:1.27.3-alpine", port: 8080 } },
  });
  assert.deepEqual(myProxyConversion.convert(hub, "proxy.kubeloop.dev/v1alpha1"), old);
});

test("v1beta1's resources travel in v1alpha1's conversion-data annotation and come back", () => {
  const spoke = myProxyConversion.convert(current, "proxy.kubeloop.dev/v1alpha1") as MyProxyV1alpha1Object;
  assert.deepEqual(spoke.spec, { replicas: 3, image: "nginx:1.27.3-alpine", port: 80 });
  assert.deepEqual(JSON.parse(spoke.metadata.annotations?.[CONVERSION_DATA_ANNOTATION] ?? ""), {
    "spec.nginx.resources": { limits: { memory: "64Mi" } },
  });
  assert.deepEqual(spoke.metadata.labels, { team: "a" });
  assert.deepEqual(myProxyConversion.convert(spoke, "proxy.kubeloop.dev/v1beta1"), current);
});

test("a v1alpha1 change to a field both versions have keeps v1beta1's resources", () => {
  const spoke = myProxyConversion.convert(current, "proxy.kubeloop.dev/v1alpha1") as MyProxyV1alpha1Object;
  const edited = { ...spoke, spec: { ...spoke.spec, port: 8443 } };
  const hub = myProxyConversion.convert(edited, "proxy.kubeloop.dev/v1beta1") as MyProxyObject;
  assert.deepEqual(hub.spec.nginx, { ...current.spec.nginx, port: 8443 });
  assert.equal(hub.metadata.annotations, undefined);
});
