import { type Client, ConfigMap } from "kubeloop";
import { inShard, shardSelector, splitHashSpace } from "kubeloop/sharding";

declare const client: Client;

// #region sharding
const mine = splitHashSpace(2).slice(0, 1); // the first of two halves
const page = await client.listPage(ConfigMap, { shardSelector: shardSelector("uid", mine) });
// Without shardInfo the server ignored the selector (feature gate off): filter on the client.
const items = page.shardInfo ? page.items : page.items.filter((o) => inShard(o, "uid", mine));
// #endregion
console.log(items.length);
