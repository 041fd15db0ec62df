import { Client } from "kubeloop";

// #region typegen
import { apiFiles } from "kubeloop/typegen";

const files = await apiFiles(await Client.load(), process.cwd()); // path → source
// #endregion

console.log([...files.keys()]);
