// #region client
import { Client, ConfigMap, NotFoundError } from "kubeloop";

const client = await Client.load();
try {
  await client.get(ConfigMap, "settings", { namespace: "default" });
} catch (err) {
  if (!(err instanceof NotFoundError)) throw err;
  await client.create(ConfigMap, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings" },
    data: {},
  });
}
// #endregion
