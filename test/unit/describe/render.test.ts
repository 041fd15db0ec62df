import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type DescribedObject, type Description, renderDescription } from "../../../src/describe/index.ts";
import type { TreeEvent } from "../../../src/describe/internal/history.ts";

function node(kind: string, name: string, extra: Partial<DescribedObject> = {}): DescribedObject {
  return {
    apiVersion: "v1",
    kind,
    name,
    namespace: "shop",
    uid: `${kind}-${name}`,
    kstatus: { status: "Current", message: "Resource is current" },
    fieldConflicts: [],
    children: [],
    ...extra,
  };
}

const pod = (name: string, ready: "True" | "False") =>
  node("Pod", name, {
    kstatus:
      ready === "True"
        ? { status: "Current", message: "" }
        : { status: "InProgress", reason: "Crash", message: "" },
    ready: { type: "Ready", status: ready, ...(ready === "False" ? { reason: "ContainersNotReady" } : {}) },
  });

const description: Description = {
  object: node("MyProxy", "edge", {
    apiVersion: "proxy.kubeloop.dev/v1",
    kstatus: { status: "InProgress", reason: "MinimumReplicasUnavailable", message: "1/2 pods ready" },
    ready: { type: "Ready", status: "False", reason: "MinimumReplicasUnavailable" },
    children: [
      node("ConfigMap", "edge-nginx", {
        controllerManager: "myproxy",
        fieldConflicts: [
          { field: "data.default.conf", managers: ["kubectl-edit"] },
          { field: "metadata.labels.team", managers: ["myproxy", "tamperer"] },
        ],
      }),
      node("Deployment", "edge", {
        children: [
          node("ReplicaSet", "edge-5d8f", {
            children: [pod("edge-5d8f-a", "True"), pod("edge-5d8f-b", "False")],
          }),
        ],
      }),
    ],
  }),
  conditions: [],
  timeline: [
    {
      time: "2026-01-01T00:00:01.5Z",
      condition: "Ready",
      from: "Absent",
      status: "Unknown",
      reason: "NotObserved",
      count: 1,
      current: false,
    },
    {
      time: "2026-01-01T00:00:09Z",
      lastTime: "2026-01-01T00:05:00Z",
      condition: "Ready",
      from: "True",
      status: "False",
      reason: "MinimumReplicasUnavailable",
      message: "1/2 pods ready",
      count: 3,
      current: true,
    },
  ],
  events: [
    {
      time: "2026-01-01T00:00:02Z",
      firstTime: "2026-01-01T00:00:02Z",
      count: 1,
      type: "Normal",
      reason: "ScalingReplicaSet",
      note: "Scaled up replica set edge-5d8f to 2",
      regarding: { kind: "Deployment", name: "edge" },
    },
    {
      time: "2026-01-01T00:05:00Z",
      firstTime: "2026-01-01T00:00:09Z",
      count: 3,
      type: "Warning",
      reason: "MinimumReplicasUnavailable",
      note: "Ready: True → False (MinimumReplicasUnavailable): 1/2 pods ready",
      regarding: { kind: "MyProxy", name: "edge" },
    },
  ],
  skipped: [{ resource: "metrics.metrics.k8s.io", reason: "503 ServiceUnavailable" }],
};

const plain = `MyProxy/edge in namespace shop (proxy.kubeloop.dev/v1)
kstatus: InProgress  (MinimumReplicasUnavailable) 1/2 pods ready

Conditions:
  2026-01-01 00:00:01  Ready  Absent → Unknown  Unknown  NotObserved
  2026-01-01 00:00:09  Ready  True → False      False    MinimumReplicasUnavailable  ×3 until 2026-01-01 00:05:00 (now) 1/2 pods ready

Owned objects (5):
  MyProxy/edge                InProgress  Ready False  MinimumReplicasUnavailable
  ├─ ConfigMap/edge-nginx     Current     Ready -
  └─ Deployment/edge          Current     Ready -
     └─ ReplicaSet/edge-5d8f  Current     Ready -
        ├─ Pod/edge-5d8f-a    Current     Ready True
        └─ Pod/edge-5d8f-b    InProgress  Ready False  ContainersNotReady

Field owners in conflict:
  ConfigMap/edge-nginx (owner's controller: myproxy)
    data.default.conf     kubectl-edit
    metadata.labels.team  myproxy, tamperer

Events:
  2026-01-01 00:00:02  Normal   Deployment/edge  ScalingReplicaSet                 Scaled up replica set edge-5d8f to 2
  2026-01-01 00:05:00  Warning  MyProxy/edge     MinimumReplicasUnavailable  (×3)  Ready: True → False (MinimumReplicasUnavailable): 1/2 pods ready

Not searched (children of these kinds may be missing):
  metrics.metrics.k8s.io: 503 ServiceUnavailable
`;

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes are what is stripped.
const stripAnsi = (text: string) => text.replace(/\u001b\[\d+m/g, "");

describe("renderDescription", () => {
  it("renders plain text: aligned columns, the tree's branches, no colour codes or symbols", () => {
    assert.equal(renderDescription(description), plain);
  });

  it("adds symbols and colours on request; without the colour codes the text is the symbols' text", () => {
    const coloured = renderDescription(description, { color: true, symbols: true });
    assert.ok(coloured.includes("\u001b[31mWarning\u001b[0m"), "a Warning in red");
    assert.ok(coloured.includes("\u001b[33m◐ InProgress\u001b[0m"), "InProgress in yellow, with its symbol");
    assert.equal(stripAnsi(coloured), renderDescription(description, { symbols: true }));
    assert.match(
      renderDescription(description, { symbols: true }),
      /Pod\/edge-5d8f-a +✓ Current +Ready ✓ True/,
    );
  });

  it("shows the most recent events only, and a limited number of fields per object", () => {
    const text = renderDescription(description, { events: 1, fieldsPerObject: 1 });
    assert.match(text, /Events \(the last 1 of 2\):\n.*MinimumReplicasUnavailable/);
    assert.doesNotMatch(text, /ScalingReplicaSet/);
    assert.match(text, /data\.default\.conf +kubectl-edit\n {4}… and 1 more \(-o json lists them all\)/);
  });

  it("escapes control characters of the cluster's text as kubectl does: ESC as ^[, CR as \\r, the others as \\xNN", () => {
    const hostile =
      "\u001b[2J\u001b]8;;http://x\u0007link\u001b]8;;\u0007\rover\bwritten\u009b31m\nnext\tcol";
    const shown = "^[[2J^[]8;;http://x\\x07link^[]8;;\\x07\\rover\\x08written\\x9b31m\\nnext\\tcol";
    const root = node("MyProxy", `edge${hostile}`, {
      kstatus: { status: "InProgress", reason: `Failing${hostile}`, message: hostile },
      ready: { type: "Ready", status: "False", reason: hostile },
      fieldConflicts: [{ field: `data.${hostile}`, managers: [hostile] }],
      controllerManager: hostile,
    });
    const event = description.events[0] as TreeEvent;
    const text = renderDescription({
      object: root,
      conditions: [],
      timeline: [
        { condition: "Ready", status: "False", reason: hostile, message: hostile, count: 1, current: true },
      ],
      events: [
        {
          ...event,
          type: "Warning",
          note: hostile,
          reason: hostile,
          regarding: { kind: "MyProxy", name: hostile },
        },
      ],
      skipped: [{ resource: hostile, reason: hostile }],
    });
    assert.doesNotMatch(
      text.replaceAll("\n", ""),
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not remain.
      /[\u0000-\u001f\u007f-\u009f]/,
      "no raw control character but line ends",
    );
    assert.doesNotMatch(text, /^next/m, "a newline of the cluster's text starts no line of its own");
    assert.ok(text.includes(`MyProxy/edge${shown} in namespace shop`));
    assert.ok(text.includes(`kstatus: InProgress  (Failing${shown}) ${shown}`));
    assert.ok(text.includes(`Warning  MyProxy/${shown}  ${shown}`), "the event's object, reason and note");
    assert.ok(text.includes(`  ${shown}: ${shown}`), "what was not searched");
    const coloured = renderDescription(
      { object: root, conditions: [], timeline: [], events: [], skipped: [] },
      { color: true },
    );
    assert.ok(!stripAnsi(coloured).includes("\u001b"), "the only escape sequences left are the colours");
  });

  it("says what is empty: no conditions, no children, no conflicts, no events", () => {
    const empty = {
      object: node("ConfigMap", "settings"),
      conditions: [],
      timeline: [],
      events: [],
      skipped: [],
    };
    assert.equal(
      renderDescription(empty),
      `ConfigMap/settings in namespace shop (v1)
kstatus: Current  Resource is current

Conditions: none reported

Owned objects: none (no object has an owner reference to it)

Field owners: no conflicts

Events: none
`,
    );
  });
  it("shows a hub object's children in member clusters under each cluster's name, and a cluster not read", () => {
    const fleetConfigMap = node("FleetConfigMap", "settings", { apiVersion: "fleet.example.com/v1alpha1" });
    const text = renderDescription({
      object: fleetConfigMap,
      conditions: [],
      timeline: [],
      events: [],
      skipped: [],
      clusters: [
        { cluster: "member-0", children: [node("ConfigMap", "settings")] },
        { cluster: "member-1", children: [] },
        { cluster: "member-2", children: [pod("web", "False")] },
        { cluster: "member-3", children: [], error: "cannot reach the API server" },
      ],
    });
    const section = (title: string) => text.split("\n\n").find((s) => s.startsWith(title));
    assert.equal(
      section("Owned objects"),
      `Owned objects (2, in this cluster and 4 member cluster(s)):
  FleetConfigMap/settings   Current     Ready -
  ├─ cluster member-0
  │  └─ ConfigMap/settings  Current     Ready -
  ├─ cluster member-1 (no children)
  ├─ cluster member-2
  │  └─ Pod/web             InProgress  Ready False  ContainersNotReady
  └─ cluster member-3 (not read)`,
    );
    assert.equal(
      section("Not searched"),
      "Not searched (children of these kinds may be missing):\n  cluster member-3: cannot reach the API server\n",
    );
  });
});
