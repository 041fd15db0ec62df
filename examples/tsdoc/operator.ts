import { Client, type Operator } from "kubeloop";
import { installCrds, installOperator, migrateStoredVersions, waitEstablished } from "kubeloop/operator";
import { MyProxy } from "../../operators/myproxy/api.ts";
import { Widget } from "../schema.ts";

declare const operator: Operator;

// #region installCrds
const client = await Client.load();
for (const crd of await installCrds(client, [Widget])) console.log(`${crd.metadata.name} established`);
// #endregion

{
  // #region installOperator
  const client = await Client.load({}, { fieldManager: "kubeloop" });
  const { crds, manifests } = await installOperator(client, operator);
  // #endregion
  console.log(crds, manifests);
}

// #region waitEstablished
const [crd] = await waitEstablished(client, ["widgets.example.com"], { timeoutMs: 30_000 });
// #endregion
console.log(crd?.status);

// #region migrateStoredVersions
const { rewritten, storedBefore } = await migrateStoredVersions(client, MyProxy);
// #endregion

console.log(rewritten, storedBefore);
