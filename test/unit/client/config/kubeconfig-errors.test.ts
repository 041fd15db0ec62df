import assert from "node:assert/strict";
import { join } from "node:path";
import { type TestContext, test } from "node:test";
import {
  ExecCredentialError,
  InClusterError,
  KubeconfigError,
  KubeconfigNotFoundError,
  KubeconfigUnsupportedError,
  loadKubeconfig,
} from "../../../../src/client/config/index.ts";
import { KubeloopError } from "../../../../src/errors/index.ts";
import { b64, corruptPem, kubeconfig, pem, put, singleUser, tempDir } from "./helpers.ts";

/** Loads `content` as the only kubeconfig and returns the error message, checked to name the file. */
async function message(t: TestContext, content: string | object, context?: string): Promise<string> {
  const dir = await tempDir(t);
  const file = await put(join(dir, "config"), content);
  const err = await loadKubeconfig({ kubeconfig: file, env: {}, context }).catch((e: unknown) => e);
  assert.ok(err instanceof KubeloopError, `expected a KubeloopError, got ${String(err)}`);
  const prefix = `kubeconfig ${file}: `;
  assert.ok(err.message.startsWith(prefix), err.message);
  return err.message.slice(prefix.length).replaceAll(dir, "<dir>");
}

const cluster = { c: { server: "https://c.example" } };

test("a context that is not defined, named by current-context or by the option", async (t) => {
  const doc = kubeconfig({
    current: "dev",
    clusters: cluster,
    contexts: { a: { cluster: "c" }, b: { cluster: "c" } },
  });
  assert.equal(
    await message(t, doc),
    'current-context is "dev", which is not defined under contexts: (defined contexts: a, b). Choose a defined one ' +
      "(the context option, or `kubectl config use-context NAME`) or add it there",
  );
  assert.match(
    await message(t, doc, "prod"),
    /^the context option names "prod", which is not defined under contexts:/,
  );
});

test("no current-context and no context option", async (t) => {
  const doc = kubeconfig({ clusters: cluster, contexts: { a: { cluster: "c" } } });
  assert.equal(
    await message(t, doc),
    "no current-context is set and no context was chosen (defined contexts: a); " +
      "run `kubectl config use-context NAME` or pass the context option",
  );
});

test("a context naming an undefined user or cluster", async (t) => {
  const user = kubeconfig({
    current: "dev",
    clusters: cluster,
    users: { alice: {} },
    contexts: { dev: { cluster: "c", user: "bob" } },
  });
  assert.equal(
    await message(t, user),
    'context "dev" names user "bob", which is not defined under users: (defined users: alice). ' +
      'Add it there or fix contexts["dev"].context.user',
  );
  const missing = kubeconfig({ current: "dev", clusters: cluster, contexts: { dev: { cluster: "gone" } } });
  assert.match(
    await message(t, missing),
    /^context "dev" names cluster "gone", which is not defined under clusters: \(defined clusters: c\)/,
  );
  const none = kubeconfig({ current: "dev", contexts: { dev: { user: "u" } } });
  assert.equal(
    await message(t, none),
    'context "dev" has no cluster. Set contexts["dev"].context.cluster (defined clusters: none)',
  );
});

test("bad base64 and data that is not PEM name the field", async (t) => {
  for (const bad of ["not base64!", "Q0E", "=Q0E"]) {
    assert.equal(
      await message(t, singleUser({}, { "certificate-authority-data": bad })),
      'clusters["c"].cluster.certificate-authority-data is not valid base64; it must hold the base64 of a PEM file ' +
        "(for example the output of `base64 -w0 file.pem`)",
    );
  }
  assert.equal(
    await message(
      t,
      singleUser({ "client-certificate-data": b64(pem.cert), "client-key-data": b64(pem.cert) }),
    ),
    'users["u"].user.client-key-data does not hold a PEM private key (no "-----BEGIN ...PRIVATE KEY-----" line)',
  );
});

test("a certificate or key that does not parse, or a key not the certificate's, names the field", async (t) => {
  const parse = /^(\S+) holds a PEM (certificate|private key) that cannot be parsed \(.+\)$/;
  const corruptKey = singleUser({
    "client-certificate-data": b64(pem.cert),
    "client-key-data": b64(corruptPem.key),
  });
  assert.deepEqual(parse.exec(await message(t, corruptKey))?.slice(1), [
    'users["u"].user.client-key-data',
    "private key",
  ]);
  const corruptCa = singleUser({}, { "certificate-authority-data": b64(pem.ca + corruptPem.cert) });
  assert.deepEqual(parse.exec(await message(t, corruptCa))?.slice(1), [
    'clusters["c"].cluster.certificate-authority-data',
    "certificate",
  ]);
  assert.equal(
    await message(
      t,
      singleUser({ "client-certificate-data": b64(pem.cert), "client-key-data": b64(pem.key2) }),
    ),
    'users["u"].user.client-key-data is not the private key of the client certificate; set the key that goes with the certificate',
  );
});

test("a referenced file that does not exist names the resolved path", async (t) => {
  assert.equal(
    await message(t, singleUser({ "client-certificate": "pki/me.crt", "client-key-data": b64(pem.key) })),
    'users["u"].user.client-certificate names <dir>/pki/me.crt, which cannot be read (ENOENT); fix the path ' +
      "(relative paths resolve against <dir>)",
  );
});

test("half a client certificate is an error", async (t) => {
  assert.equal(
    await message(t, singleUser({ "client-certificate-data": b64(pem.cert) })),
    'users["u"].user.client-certificate-data is set without client-key(-data); add the key',
  );
  assert.match(
    await message(t, singleUser({ "client-key": "k" })),
    /^users\["u"\]\.user\.client-key names <dir>\/k/,
  );
});

test("legacy auth-provider entries point to exec plugins", async (t) => {
  const dir = await tempDir(t);
  const file = await put(join(dir, "config"), singleUser({ "auth-provider": { name: "oidc", config: {} } }));
  await assert.rejects(loadKubeconfig({ kubeconfig: file, env: {} }), (err: unknown) => {
    assert.ok(err instanceof KubeconfigUnsupportedError);
    assert.equal(
      err.message,
      `kubeconfig ${file}: users["u"].user.auth-provider ("oidc") is a legacy auth provider, which kubeloop does ` +
        "not support; use an exec credential plugin instead (for example gke-gcloud-auth-plugin on GKE, " +
        "kubelogin on AKS or for OIDC)",
    );
    return true;
  });
});

test("two authentication methods, or impersonation without a user, are errors", async (t) => {
  assert.equal(
    await message(t, singleUser({ token: "t", password: "p" })),
    'users["u"].user sets token and username/password; keep only one of these authentication methods',
  );
  assert.equal(
    await message(t, singleUser({ "as-groups": ["g"] })),
    'users["u"].user.as is not set, but as-groups, as-uid or as-user-extra is; impersonation needs a user',
  );
});

test("malformed files: bad YAML, wrong types, duplicate names", async (t) => {
  assert.match(await message(t, "clusters: [\n"), /^is not valid YAML: /);
  assert.match(
    await message(t, singleUser({}, { server: 6443 })),
    /^clusters\["c"\]\.cluster\.server: expected string, received number \(the format: https:\/\/kubernetes\.io\//,
  );
  assert.match(
    await message(t, { users: [{ name: 7 }] }),
    /^users\[0\]\.name: expected string, received number/,
  );
  assert.equal(
    await message(t, {
      clusters: [
        { name: "c", cluster: {} },
        { name: "c", cluster: {} },
      ],
    }),
    'clusters: the name "c" appears twice; names must be unique',
  );
});

test("error codes are distinct and every class is a KubeloopError", () => {
  const errors = [
    new KubeconfigNotFoundError(["/x"], "default"),
    new KubeconfigError("/x", "d"),
    new KubeconfigUnsupportedError("/x", "d"),
    new ExecCredentialError("cmd", "plugin", "d"),
    new InClusterError("d"),
  ];
  assert.ok(errors.every((e) => e instanceof KubeloopError));
  assert.equal(new Set(errors.map((e) => e.code)).size, errors.length);
  assert.deepEqual(
    errors.map((e) => e.name),
    [
      "KubeconfigNotFoundError",
      "KubeconfigError",
      "KubeconfigUnsupportedError",
      "ExecCredentialError",
      "InClusterError",
    ],
  );
});
