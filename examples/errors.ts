import { type Client, ConfigMap, type ConfigMapObject } from "kubeloop";
import { KubeloopError } from "kubeloop/errors";

// #region errors
export async function readSettings(client: Client): Promise<ConfigMapObject | undefined> {
  try {
    return await client.get(ConfigMap, "settings", { namespace: "default" });
  } catch (err) {
    if (err instanceof KubeloopError && err.code === "KL_NOT_FOUND") return undefined;
    throw err;
  }
}
// #endregion
