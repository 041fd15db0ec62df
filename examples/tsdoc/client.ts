import { trace } from "@opentelemetry/api";
import { Client, ConfigMap } from "kubeloop";
import { Lease } from "kubeloop/api/coordination.k8s.io/v1";

// #region Client
const client = await Client.load(); // KUBECONFIG, or in-cluster
const cm = await client.get(ConfigMap, "settings", { namespace: "default" });
await client.apply(
  ConfigMap,
  { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "default" }, data: { a: "1" } },
  { fieldManager: "my-operator", force: true },
);
// #endregion

// #region Client.fenced
const lost = new AbortController();
const writer = client.fenced(lost.signal);
lost.abort(new Error("leadership lost"));
await writer.create(ConfigMap, cm); // rejects with WriteFencedError (KL_WRITE_FENCED)
// #endregion

// #region Client.traced
const span = trace.getTracer("my-operator").startSpan("sync");
await client.traced(span).get(ConfigMap, "settings"); // a span "get configmaps" under "sync"
span.end();
// #endregion

// #region Client.observed
const seen = new Set<string>();
const watched = client.observed((type, verb) => seen.add(`${verb} ${type.kind}`));
await watched.get(ConfigMap, "settings"); // seen: "get ConfigMap"
// #endregion

// #region Client.limited
const leases = client.limited(10, 10);
await leases.get(Lease, "my-operator", { namespace: "operators" }); // not queued behind `client`'s calls
// #endregion

// #region Client.written
const versions: string[] = [];
const recorded = client.written((_type, write) =>
  versions.push(write.object?.metadata.resourceVersion ?? "gone"),
);
await recorded.create(ConfigMap, cm); // versions: the resourceVersion of the created ConfigMap
// #endregion
