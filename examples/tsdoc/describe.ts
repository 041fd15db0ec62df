import type { Client } from "kubeloop";
import { describeObject, renderDescription } from "kubeloop/describe";

declare const client: Client;

// #region describeObject
const description = await describeObject(client, "deployment/web", { namespace: "shop" });
description.object.kstatus.status; // "Current"
// #endregion

// #region renderDescription
process.stdout.write(renderDescription(description, { color: true, symbols: true }));
// #endregion
