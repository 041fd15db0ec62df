// #region describe
import { Client } from "kubeloop";
import { describeObject, renderDescription } from "kubeloop/describe";

const client = await Client.load();
const description = await describeObject(client, "myproxy/edge", { namespace: "shop" });
process.stdout.write(renderDescription(description, { color: true, symbols: true }));
// #endregion
