import { type Client, ConfigMap } from "kubeloop";
import { watch } from "kubeloop/watch";

declare const client: Client;

// #region watch
const controller = new AbortController();
for await (const event of watch(client, ConfigMap, { namespace: "default", signal: controller.signal })) {
  if (event.type === "apply") console.log("now", event.object.metadata.name);
  if (event.type === "delete") console.log("gone", event.object.metadata.name);
}
// #endregion
