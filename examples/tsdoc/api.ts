import { Client, type InputOf } from "kubeloop";
import { Widget } from "./kinds.ts";

const { apiVersion, kind } = Widget;
const client = await Client.load();

// #region InputOf
const widget: InputOf<typeof Widget> = { apiVersion, kind, metadata: { name: "w" }, spec: {} };
const created = await client.create(Widget, widget); // ObjectOf<typeof Widget>: spec.replicas set
// #endregion

console.log(created.spec.replicas);
