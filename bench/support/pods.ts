/**
 * Pod-like objects of about 4.7 KB of JSON, shaped like a Deployment's Pod as the apiserver
 * returns it: labels, annotations, an owner reference, two `managedFields` entries
 * (kube-controller-manager's create and the kubelet's status updates), a container with
 * env, ports, resources and mounts, a projected service-account volume, and a Running
 * status with conditions and container statuses.
 *
 * Every object has its own name, uid, resourceVersion, timestamps, IPs, node, hashes and
 * container IDs; values shared by the Pods of one Deployment (image, labels) repeat across
 * objects, as they do in a real cluster. Callers serialise the objects to JSON and parse them
 * back, so no string is shared with these templates.
 */
import type { KubeObject } from "../../src/api/index.ts";

const deployments = 200;
const nodes = 100;
const teams = ["payments", "checkout", "search", "catalog", "identity", "billing", "media", "ads"];

/** Deterministic pseudo-random hex of `length` digits for (i, salt). */
function hex(i: number, salt: number, length: number): string {
  let out = "";
  let x = (i + 1) * 2654435761 + salt * 40503;
  while (out.length < length) {
    x = (Math.imul(x ^ (x >>> 15), 2246822519) + 0x9e3779b9) >>> 0;
    out += x.toString(16).padStart(8, "0");
  }
  return out.slice(0, length);
}

const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789";
const suffixSpace = suffixAlphabet.length ** 5;

/** A 5-character Pod name suffix as Kubernetes generates them, distinct for i below 27^5 (14.3M). */
function suffix(i: number): string {
  let x = (i * 7_654_321) % suffixSpace;
  let out = "";
  for (let k = 0; k < 5; k++) {
    out += suffixAlphabet[x % suffixAlphabet.length];
    x = Math.floor(x / suffixAlphabet.length);
  }
  return out;
}

function uid(i: number, salt: number): string {
  const h = hex(i, salt, 32);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function timestamp(seconds: number): string {
  return new Date(Date.UTC(2026, 10, 1) + seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

const f = {};

/** kube-controller-manager's Update: what the ReplicaSet controller wrote at create time. */
function controllerFields(container: string[]): unknown {
  const containerFields = (name: string) => ({
    [`k:{"name":"${name}"}`]: {
      ".": f,
      "f:env": { ".": f, 'k:{"name":"LOG_LEVEL"}': { ".": f, "f:name": f, "f:value": f } },
      "f:image": f,
      "f:imagePullPolicy": f,
      "f:name": f,
      "f:ports": { ".": f, 'k:{"containerPort":8080,"protocol":"TCP"}': { ".": f, "f:containerPort": f } },
      "f:resources": { ".": f, "f:limits": { ".": f, "f:memory": f }, "f:requests": { ".": f, "f:cpu": f } },
      "f:terminationMessagePath": f,
    },
  });
  return {
    "f:metadata": {
      "f:generateName": f,
      "f:labels": { ".": f, "f:app": f, "f:pod-template-hash": f, "f:team": f, "f:version": f },
      "f:ownerReferences": { ".": f, 'k:{"uid":"..."}': f },
    },
    "f:spec": {
      "f:containers": Object.assign({}, ...container.map(containerFields)),
      "f:dnsPolicy": f,
      "f:restartPolicy": f,
      "f:serviceAccountName": f,
    },
  };
}

/** The kubelet's status Update. */
function kubeletFields(): unknown {
  const condition = (type: string) => ({
    [`k:{"type":"${type}"}`]: { ".": f, "f:lastTransitionTime": f, "f:status": f, "f:type": f },
  });
  return {
    "f:status": {
      "f:conditions": Object.assign(
        {},
        ...["ContainersReady", "Initialized", "PodReadyToStartContainers", "PodScheduled", "Ready"].map(
          condition,
        ),
      ),
      "f:containerStatuses": f,
      "f:hostIP": f,
      "f:phase": f,
      "f:podIP": f,
      "f:podIPs": { ".": f, 'k:{"ip":"..."}': { ".": f, "f:ip": f } },
      "f:startTime": f,
    },
  };
}

function container(name: string, image: string, i: number, deployment: number) {
  return {
    name,
    image,
    imagePullPolicy: "IfNotPresent",
    env: [
      { name: "LOG_LEVEL", value: "info" },
      { name: "SERVICE_NAME", value: `${teams[deployment % teams.length]}-api-${deployment}` },
    ],
    ports: [{ name: "http", containerPort: 8080 + (i % 2), protocol: "TCP" }],
    resources: { limits: { memory: "512Mi" }, requests: { cpu: "250m", memory: "256Mi" } },
    volumeMounts: [
      {
        name: `kube-api-access-${hex(i, 7, 5)}`,
        readOnly: true,
        mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
      },
    ],
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
  };
}

/** The `i`-th Pod-like object (deterministic; names are distinct for i below 14.3M). */
export function podLike(i: number, namespace = `team-${i % 20}`): KubeObject {
  const deployment = i % deployments;
  const team = teams[deployment % teams.length] as string;
  const app = `${team}-api-${deployment}`;
  const hash = hex(deployment, 1, 10);
  const name = `${app}-${hash}-${suffix(i)}`;
  const created = 86_400 + i;
  const node = `worker-${(i * 7) % nodes}.pool-a.example.internal`;
  const podIP = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const hostIP = `192.168.${(i * 7) % nodes}.${10 + (i % 200)}`;
  const image = `registry.example.com/${team}/${app}:v1.${deployment % 17}.${deployment % 5}`;
  const containers = [container(app, image, i, deployment)];
  const conditions = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      generateName: `${app}-${hash}-`,
      namespace,
      uid: uid(i, 3),
      resourceVersion: String(1_000_000 + i * 13),
      creationTimestamp: timestamp(created),
      labels: {
        app,
        "pod-template-hash": hash,
        team,
        version: `v1.${deployment % 17}`,
        "app.kubernetes.io/part-of": `${team}-platform`,
      },
      annotations: {
        "kubectl.kubernetes.io/restartedAt": timestamp(created - 3600),
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "9090",
      },
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "ReplicaSet",
          name: `${app}-${hash}`,
          uid: uid(deployment, 4),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: "kube-controller-manager",
          operation: "Update",
          apiVersion: "v1",
          time: timestamp(created),
          fieldsType: "FieldsV1",
          fieldsV1: controllerFields([app]),
        },
        {
          manager: "kubelet",
          operation: "Update",
          apiVersion: "v1",
          time: timestamp(created + 5),
          fieldsType: "FieldsV1",
          fieldsV1: kubeletFields(),
          subresource: "status",
        },
      ],
    },
    spec: {
      containers,
      volumes: [
        {
          name: `kube-api-access-${hex(i, 7, 5)}`,
          projected: {
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
            ],
            defaultMode: 420,
          },
        },
      ],
      restartPolicy: "Always",
      terminationGracePeriodSeconds: 30,
      dnsPolicy: "ClusterFirst",
      serviceAccountName: "default",
      nodeName: node,
      securityContext: {},
      schedulerName: "default-scheduler",
      tolerations: [
        {
          key: "node.kubernetes.io/not-ready",
          operator: "Exists",
          effect: "NoExecute",
          tolerationSeconds: 300,
        },
      ],
      priority: 0,
      enableServiceLinks: true,
    },
    status: {
      phase: "Running",
      conditions: conditions.map((type, k) => ({
        type,
        status: "True",
        lastProbeTime: null,
        lastTransitionTime: timestamp(created + 1 + k),
      })),
      hostIP,
      podIP,
      podIPs: [{ ip: podIP }],
      startTime: timestamp(created),
      containerStatuses: containers.map((c, k) => ({
        name: c.name,
        state: { running: { startedAt: timestamp(created + 3 + k) } },
        ready: true,
        restartCount: 0,
        image: c.image,
        imageID: `${c.image.split(":")[0]}@sha256:${hex(deployment, 5 + k, 64)}`,
        containerID: `containerd://${hex(i, 8 + k, 64)}`,
        started: true,
      })),
      qosClass: "Burstable",
    },
  } as KubeObject;
}

/** The JSON text of the `i`-th object. */
export function podJson(i: number): string {
  return JSON.stringify(podLike(i));
}
