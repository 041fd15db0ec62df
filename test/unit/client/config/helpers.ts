import { createPrivateKey } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { stringify } from "yaml";
import { createCertificateAuthority, issueCertificate, type KeyPair } from "../../../../src/tls/index.ts";

/** A client certificate and its key, PEM, issued by `ca`. */
async function clientPair(ca: KeyPair, commonName: string): Promise<KeyPair> {
  return issueCertificate(ca, { commonName, usage: "client" });
}

const [authority, authority2] = await Promise.all([
  createCertificateAuthority("config-test-ca"),
  createCertificateAuthority("config-test-ca-2"),
]);
const [client, client2] = await Promise.all([clientPair(authority, "alice"), clientPair(authority, "bob")]);

/**
 * PEM values that parse, as the loader checks: two CA certificates, and two client certificates
 * with their keys (`key` in SEC 1's `EC PRIVATE KEY` form, `key2` in PKCS #8's `PRIVATE KEY`).
 */
export const pem = {
  ca: authority.certPem,
  ca2: authority2.certPem,
  cert: client.certPem,
  key: createPrivateKey(client.keyPem).export({ type: "sec1", format: "pem" }).toString(),
  cert2: client2.certPem,
  key2: createPrivateKey(client2.keyPem).export({ type: "pkcs8", format: "pem" }).toString(),
};

/** PEM blocks with the right markers around bytes that are not a certificate or a key. */
export const corruptPem = {
  cert: "-----BEGIN CERTIFICATE-----\nQ0EtY2VydA==\n-----END CERTIFICATE-----\n",
  key: "-----BEGIN EC PRIVATE KEY-----\nY2xpZW50LWtleQ==\n-----END EC PRIVATE KEY-----\n",
};

/** Base64 of a string. */
export const b64 = (text: string): string => Buffer.from(text).toString("base64");

/** A fresh temporary directory, removed when the test ends. */
export async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kubeloop-config-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `content` (YAML for objects) to `path`, creating parent directories. */
export async function put(path: string, content: string | object): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, typeof content === "string" ? content : stringify(content));
  return path;
}

/** A named kubeconfig entry list item. */
type Named<K extends string> = { name: string } & { [key in K]: Record<string, unknown> };

/** Builds a kubeconfig document from short maps of name to body. */
export function kubeconfig(parts: {
  current?: string;
  clusters?: Record<string, Record<string, unknown>>;
  users?: Record<string, Record<string, unknown>>;
  contexts?: Record<string, Record<string, unknown>>;
}): object {
  const list = <K extends string>(key: K, map: Record<string, Record<string, unknown>> = {}): Named<K>[] =>
    Object.entries(map).map(([name, body]) => ({ name, [key]: body }) as Named<K>);
  return {
    apiVersion: "v1",
    kind: "Config",
    ...(parts.current ? { "current-context": parts.current } : {}),
    clusters: list("cluster", parts.clusters),
    users: list("user", parts.users),
    contexts: list("context", parts.contexts),
  };
}

/** A one-cluster, one-context kubeconfig whose user is `user`. */
export function singleUser(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): object {
  return kubeconfig({
    current: "ctx",
    clusters: { c: { server: "https://c.example:6443", ...cluster } },
    users: { u: user },
    contexts: { ctx: { cluster: "c", user: "u" } },
  });
}

/** What the fake exec plugin does on its next run. */
export interface PluginBehaviour {
  credential?: object;
  stdout?: string;
  stderr?: string;
  exit?: number;
  hang?: boolean;
}

/** One run of the fake exec plugin, as it recorded it. */
export interface PluginCall {
  argv: string[];
  env: Record<string, string>;
  info: {
    apiVersion: string;
    kind: string;
    spec: { interactive: boolean; cluster?: Record<string, unknown> };
  };
}

const pluginSource = `#!/usr/bin/env node
const fs = require("node:fs");
const path = require("node:path");
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("T_")));
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
fs.appendFileSync(path.join(__dirname, "calls.jsonl"), JSON.stringify({ argv: process.argv.slice(2), env, info }) + "\\n");
const b = JSON.parse(fs.readFileSync(path.join(__dirname, "behaviour.json"), "utf8"));
if (b.hang) {
  setInterval(() => {}, 1000);
} else {
  if (b.stderr) process.stderr.write(b.stderr);
  process.stdout.write(b.stdout !== undefined ? b.stdout : JSON.stringify(b.credential ?? {}));
  process.exitCode = b.exit ?? 0;
}
`;

/** A fake exec credential plugin in `dir`: an executable `plugin` script, driven by {@link PluginBehaviour}. */
export class FakePlugin {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Writes the script and its first behaviour. */
  async install(behaviour: PluginBehaviour): Promise<this> {
    const script = await put(join(this.dir, "plugin"), pluginSource);
    await chmod(script, 0o755);
    await this.behave(behaviour);
    return this;
  }

  /** Sets what the next runs do. */
  async behave(behaviour: PluginBehaviour): Promise<void> {
    await put(join(this.dir, "behaviour.json"), JSON.stringify(behaviour));
  }

  /** Every run so far. */
  async calls(): Promise<PluginCall[]> {
    const text = await readFile(join(this.dir, "calls.jsonl"), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as PluginCall);
  }
}

/** An ExecCredential as a plugin prints it. */
export function execCredential(
  status: Record<string, unknown>,
  apiVersion = "client.authentication.k8s.io/v1",
): object {
  return { apiVersion, kind: "ExecCredential", status };
}

/** Resolves once `condition` holds, checking after each turn of the event loop; gives up after many turns. */
export async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; !condition(); turn++) {
    if (turn > 100_000) throw new Error("condition never became true");
    await new Promise((resolve) => setImmediate(resolve));
  }
}
