import { type Client, ConfigMap } from "kubeloop";
import { watch } from "kubeloop/watch";

declare const client: Client;
declare const signal: AbortSignal;

// #region watch
for await (const event of watch(client, ConfigMap, { namespace: "default", signal })) {
  if (event.type === "apply") console.log("changed", event.object.metadata.name);
}
// #endregion
