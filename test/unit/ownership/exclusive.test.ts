import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { DeploymentObject, ManagedFieldsEntry } from "../../../src/api/index.ts";
import {
  type CoWriter,
  defaultCoWriters,
  latestWriter,
  takeOver,
  takeOverPatch,
} from "../../../src/ownership/exclusive.ts";
import { createdByManager, takenOverFields } from "./fixtures/taken-over.ts";
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
const NOW = "2026-01-01T00:00:30Z";
/** What takeOver removes from `obj`. */
const foreignAdditions = (obj: DeploymentObject, want: DeploymentObject, own: string, allow?: CoWriter[]) =>
  takeOver(obj, want, own, allow ?? defaultCoWriters, NOW).removed;
const pointers = (found: ReturnType<typeof foreignAdditions>) => found.map((f) => f.pointer.join("/"));

describe("takeOver: what it removes", () => {
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

describe("takeOver of a child another manager wrote", () => {
  /** The Deployment the previous operator created, as the operator desires it: without its env. */
  function desiredOfCreated(): DeploymentObject {
    const want = structuredClone(createdByManager);
    const { labels, name, namespace } = want.metadata;
    want.metadata = { labels, name, namespace };
    const spec = want.spec;
    assert.ok(spec);
    const [nginx] = spec.template.spec?.containers ?? [];
    assert.ok(nginx);
    const { name: n, image, ports = [], volumeMounts } = nginx;
    spec.template.spec = {
      containers: [
        {
          name: n,
          image,
          ports: ports.map((p) => ({ name: p.name, containerPort: p.containerPort })),
          volumeMounts,
        },
      ],
      volumes: [{ name: "config", configMap: { name: "web-nginx" } }],
    };
    delete spec.strategy;
    delete spec.revisionHistoryLimit;
    delete spec.progressDeadlineSeconds;
    return want;
  }
  const entryOf = (fields: readonly ManagedFieldsEntry[] | undefined, manager: string) =>
    fields?.find((e) => e.manager === manager);

  it("reads the `.` keys of a plain create's field sets and removes what the creator set that the desired object lacks, defaulted fields too", () => {
    const plan = takeOver(createdByManager, desiredOfCreated(), "myproxy", defaultCoWriters, NOW);
    const pod = "spec/template/spec";
    assert.deepEqual(pointers(plan.removed).sort(), [
      "spec/progressDeadlineSeconds",
      "spec/revisionHistoryLimit",
      "spec/strategy",
      `${pod}/containers/0/env`,
      `${pod}/containers/0/imagePullPolicy`,
      `${pod}/containers/0/ports/0/protocol`,
      `${pod}/containers/0/resources`,
      `${pod}/containers/0/terminationMessagePath`,
      `${pod}/containers/0/terminationMessagePolicy`,
      `${pod}/dnsPolicy`,
      `${pod}/restartPolicy`,
      `${pod}/schedulerName`,
      `${pod}/securityContext`,
      `${pod}/terminationGracePeriodSeconds`,
      `${pod}/volumes/0/configMap/defaultMode`,
    ]);
    assert.deepEqual(new Set(plan.removed.map((f) => f.writer.manager)), new Set(["manager"]));
  });

  it("rewrites managedFields as the apiserver then kept them: the creator claims only metadata, the operator's new Apply entry (at now) what it desires", () => {
    const plan = takeOver(createdByManager, desiredOfCreated(), "myproxy", defaultCoWriters, NOW);
    const creator = entryOf(plan.managedFields, "manager");
    assert.deepEqual(Object.keys(creator?.fieldsV1 ?? {}), ["f:metadata"]);
    assert.deepEqual(creator, entryOf(takenOverFields, "manager"));
    const ours = entryOf(plan.managedFields, "myproxy");
    assert.deepEqual(ours, { ...entryOf(takenOverFields, "myproxy"), time: NOW });
  });

  it("finds nothing to do in the child as the apiserver answered the take-over", () => {
    const after = {
      ...desiredOfCreated(),
      metadata: { ...createdByManager.metadata, managedFields: takenOverFields },
    };
    assert.deepEqual(takeOver(after, desiredOfCreated(), "myproxy", defaultCoWriters, NOW), { removed: [] });
  });

  it("moves the claims of a manager that co-owns only desired fields to the operator's Apply entry, removing nothing", () => {
    const image = podSpec({ "f:containers": { [NGINX]: { ".": {}, "f:image": {}, "f:name": {} } } });
    const mine = owning(OWN, T, { "f:spec": { "f:replicas": {} } }, "Apply");
    const renamed = { ...owning("old-name", T, image, "Apply"), apiVersion: "apps/v1" };
    const obj = {
      ...desired(),
      metadata: { ...desired().metadata, managedFields: [{ ...mine, apiVersion: "apps/v1" }, renamed] },
    };
    const plan = takeOver(obj, desired(), OWN, defaultCoWriters, NOW);
    assert.deepEqual(plan.removed, []);
    assert.deepEqual(plan.managedFields, [
      { ...mine, apiVersion: "apps/v1", fieldsV1: { "f:spec": { "f:replicas": {}, ...image["f:spec"] } } },
    ]);
  });

  it("keeps an allowed co-writer's claims and claims on what the live object lacks, and drops, not takes, another version's claims", () => {
    const restart = { "f:metadata": { "f:annotations": { "f:kubectl.kubernetes.io/restartedAt": {} } } };
    const rollout = {
      ...owning("kubectl-rollout", T, {
        "f:spec": { "f:template": { ...restart, "f:spec": { "f:dnsPolicy": {} } } },
      }),
      apiVersion: "apps/v1",
    };
    const beta = {
      ...owning("old", T, podSpec({ "f:containers": { [NGINX]: { "f:image": {} } } })),
      apiVersion: "apps/v1beta1",
    };
    const obj = live([rollout, beta]);
    const plan = takeOver(obj, desired(), OWN, defaultCoWriters, NOW);
    assert.deepEqual(pointers(plan.removed), []);
    assert.deepEqual(plan.managedFields, [
      {
        ...rollout,
        fieldsV1: { "f:spec": { "f:template": { ...restart, "f:spec": { "f:dnsPolicy": {} } } } },
      },
    ]);
  });

  it("drops rather than takes the claims when the operator's Apply entry is of another version", () => {
    const image = podSpec({ "f:containers": { [NGINX]: { "f:image": {} } } });
    const mine = {
      ...owning(OWN, T, { "f:spec": { "f:replicas": {} } }, "Apply"),
      apiVersion: "apps/v1beta2",
    };
    const previous = { ...owning("old", T, image), apiVersion: "apps/v1" };
    const obj = { ...desired(), metadata: { ...desired().metadata, managedFields: [mine, previous] } };
    assert.deepEqual(takeOver(obj, desired(), OWN, defaultCoWriters, NOW).managedFields, [mine]);
  });

  it("leaves a list key it cannot read, instead of failing", () => {
    const broken = owning(
      "tool",
      T,
      podSpec({ "f:containers": { "k:{not json": { ".": {} }, "x:unknown": {} } }),
    );
    assert.deepEqual(takeOver(live([broken]), desired(), OWN, defaultCoWriters, NOW), { removed: [] });
  });
});

describe("takeOverPatch", () => {
  const writer = { manager: "m", operation: "Update" };
  it("starts with the resourceVersion precondition, removes list entries from the highest index, escapes keys, and rewrites managedFields last", () => {
    const removed = [
      { pointer: ["spec", "env", "2"], writer },
      { pointer: ["spec", "env", "10"], writer },
      { pointer: ["metadata", "annotations", "a/b~c"], writer },
    ];
    const managedFields = [owning(OWN, T, { "f:spec": {} }, "Apply")];
    assert.deepEqual(takeOverPatch({ removed, managedFields }, "42"), [
      { op: "replace", path: "/metadata/resourceVersion", value: "42" },
      { op: "remove", path: "/spec/env/10" },
      { op: "remove", path: "/spec/env/2" },
      { op: "remove", path: "/metadata/annotations/a~1b~0c" },
      { op: "replace", path: "/metadata/managedFields", value: managedFields },
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
