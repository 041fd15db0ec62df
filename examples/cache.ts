import type { Client } from "kubeloop";
import { Pod } from "kubeloop";
import { InformerCache } from "kubeloop/cache";

declare const client: Client;
declare const signal: AbortSignal;

// #region cache
const cache = new InformerCache(client);
const pods = cache.informer(Pod, { namespace: "default", labelSelector: "app=web" });
pods.addHandler({ onAdd: (pod) => console.log("pod", pod.metadata.name) });
cache.start(signal);
await cache.waitForSync(signal);
console.log(pods.store.list().length);
// #endregion
