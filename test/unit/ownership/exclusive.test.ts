import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DeploymentObject, ManagedFieldsEntry } from "../../../src/api/index.ts";
import {
  defaultCoWriters,
  foreignAdditions,
  latestWriter,
  removalPatch,
} from "../../../src/ownership/exclusive.ts";
import { owning } from "./support.ts";

const OWN = "myproxy";
const NGINX = 'k:{"name":"nginx"}';
const HTTP = 'k:{"containerPort":80,"protocol":"TCP"}';

/** The Deployment the operator desires: one nginx container with a port (protocol left to the default). */
function desired(
  extra: { env?: { name: string; value: string }[]; annotations?: Record<string, string> } = {},
): DeploymentObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "ns" },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: {
          labels: { app: "web" },
          ...(extra.annotations ? { annotations: extra.annotations } : {}),
        },
        spec: {
          containers: [
            {
              name: "nginx",
              image: "nginx",
              ports: [{ containerPort: 80 }],
              ...(extra.env ? { env: extra.env } : {}),
            },
          ],
        },
      },
    },
  };
}

/** The live Deployment: `desired` plus what others added, with the given field sets. */
function live(managedFields: ManagedFieldsEntry[]): DeploymentObject {
  const obj = desired({
    env: [
      { name: "MODE", value: "prod" },
      { name: "DEBUG", value: "1" },
    ],
    annotations: { "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z", team: "ops" },
  });
  const spec = obj.spec?.template.spec;
  assert.ok(spec);
  spec.hostNetwork = true;
  spec.initContainers = [{ name: "init", image: "busybox" }];
  const [nginx] = spec.containers;
  // The apiserver defaults hostPort for pods on the host network.
  if (nginx) nginx.ports = [{ containerPort: 80, protocol: "TCP", hostPort: 80 }];
  obj.metadata.managedFields = managedFields;
  obj.metadata.resourceVersion = "42";
  return obj;
}

const T = "2026-01-01T00:00:09Z";
const podSpec = (fields: object) => ({ "f:spec": { "f:template": { "f:spec": fields } } });
const pointers = (found: ReturnType<typeof foreignAdditions>) => found.map((f) => f.pointer.join("/"));

describe("foreignAdditions", () => {
  it("finds what kubectl patch added to the pod template: hostNetwork, an env list, an init container", () => {
    const patched = owning(
      "kubectl-patch",
      T,
      podSpec({
        "f:hostNetwork": {},
        "f:initContainers": { ".": {}, 'k:{"name":"init"}': { ".": {}, "f:image": {}, "f:name": {} } },
        "f:containers": {
          [NGINX]: { "f:env": { ".": {}, 'k:{"name":"DEBUG"}': { ".": {}, "f:name": {} } } },
        },
      }),
    );
    const found = foreignAdditions(live([patched]), desired(), OWN);
    assert.deepEqual(pointers(found).sort(), [
      "spec/template/spec/containers/0/env",
      "spec/template/spec/hostNetwork",
      "spec/template/spec/initContainers",
    ]);
    assert.deepEqual(found[0]?.writer, { manager: "kubectl-patch", operation: "Update", time: T });
  });

  it("finds one entry added to a desired list, by its index, and only the field added to a desired element", () => {
    const added = owning(
      "kubectl-edit",
      T,
      podSpec({
        "f:containers": {
          [NGINX]: {
            "f:env": { 'k:{"name":"DEBUG"}': { ".": {}, "f:name": {}, "f:value": {} } },
            "f:ports": { [HTTP]: { "f:hostPort": {} } },
          },
        },
      }),
    );
    const want = desired({ env: [{ name: "MODE", value: "prod" }] });
    assert.deepEqual(pointers(foreignAdditions(live([added]), want, OWN)).sort(), [
      "spec/template/spec/containers/0/env/1",
      "spec/template/spec/containers/0/ports/0/hostPort",
    ]);
  });

  it("leaves the operator's own fields, metadata, status entries and the default co-writers alone", () => {
    const entries = [
      owning(OWN, T, podSpec({ "f:hostNetwork": {} })),
      owning("labeler", T, { "f:metadata": { "f:labels": { "f:team": {} } } }),
      { ...owning("kubectl", T, { "f:status": { "f:replicas": {} } }), subresource: "status" },
      { ...owning("kube-controller-manager", T, { "f:spec": { "f:replicas": {} } }), subresource: "scale" },
      owning("kubectl-rollout", T, {
        "f:spec": {
          "f:template": { "f:metadata": { "f:annotations": { "f:kubectl.kubernetes.io/restartedAt": {} } } },
        },
      }),
    ];
    const want = desired();
    assert.ok(want.spec);
    delete want.spec.replicas; // an HPA scales it
    assert.deepEqual(foreignAdditions(live(entries), want, OWN), []);
  });

  it("keeps an allowed field inside a map the desired object lacks, and removes its neighbours", () => {
    const annotations = owning("kubectl-rollout", T, {
      "f:spec": {
        "f:template": {
          "f:metadata": {
            "f:annotations": { ".": {}, "f:kubectl.kubernetes.io/restartedAt": {}, "f:team": {} },
          },
        },
      },
    });
    assert.deepEqual(pointers(foreignAdditions(live([annotations]), desired(), OWN)), [
      "spec/template/metadata/annotations/team",
    ]);
  });

  it("takes an allow-list: a manager's every field, or one path with * matching any segment", () => {
    const patched = owning(
      "sidecar-injector",
      T,
      podSpec({ "f:initContainers": { ".": {} }, "f:hostNetwork": {} }),
    );
    const allowAll = [...defaultCoWriters, { manager: "sidecar-injector" }];
    assert.deepEqual(foreignAdditions(live([patched]), desired(), OWN, allowAll), []);
    const allowInit = [{ path: ["spec", "template", "*", "initContainers"] }];
    assert.deepEqual(pointers(foreignAdditions(live([patched]), desired(), OWN, allowInit)), [
      "spec/template/spec/hostNetwork",
    ]);
  });

  it("reports a field once, at its highest point, when several managers own parts of it", () => {
    const list = owning("a", T, podSpec({ "f:initContainers": { ".": {} } }));
    const element = owning(
      "b",
      "2026-01-01T00:00:10Z",
      podSpec({ "f:initContainers": { 'k:{"name":"init"}': {} } }),
    );
    assert.deepEqual(pointers(foreignAdditions(live([element, list]), desired(), OWN)), [
      "spec/template/spec/initContainers",
    ]);
  });

  it("skips fields the live object no longer has", () => {
    const gone = owning(
      "kubectl-patch",
      T,
      podSpec({ "f:dnsPolicy": {}, "f:containers": { 'k:{"name":"gone"}': {} } }),
    );
    assert.deepEqual(foreignAdditions(live([gone]), desired(), OWN), []);
  });
});

describe("removalPatch", () => {
  const writer = { manager: "m", operation: "Update" };
  it("starts with the resourceVersion precondition, removes list entries from the highest index, and escapes keys", () => {
    const fields = [
      { pointer: ["spec", "env", "2"], writer },
      { pointer: ["spec", "env", "10"], writer },
      { pointer: ["metadata", "annotations", "a/b~c"], writer },
    ];
    assert.deepEqual(removalPatch(fields, "42"), [
      { op: "replace", path: "/metadata/resourceVersion", value: "42" },
      { op: "remove", path: "/spec/env/10" },
      { op: "remove", path: "/spec/env/2" },
      { op: "remove", path: "/metadata/annotations/a~1b~0c" },
    ]);
  });
});

describe("latestWriter", () => {
  it("names the most recent writer, an entry without a time counting as the most recent", () => {
    const at = (manager: string, time?: string) => ({
      pointer: [],
      writer: { manager, operation: "Update", time },
    });
    assert.equal(
      latestWriter([at("a", "2026-01-01T00:00:01Z"), at("b", "2026-01-01T00:00:02Z")])?.manager,
      "b",
    );
    assert.equal(latestWriter([at("a", "2026-01-01T00:00:03Z"), at("scale"), at("b", T)])?.manager, "scale");
    assert.equal(latestWriter([]), undefined);
  });
});
