import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  EndpointFlagError,
  endpointOptions,
  parseEndpointFlags,
  parseOperatorFlags,
} from "../../../src/manager/index.ts";

describe("parseEndpointFlags", () => {
  it("reads kubebuilder's flags: bind addresses, secure metrics and the certificate directory", () => {
    assert.deepEqual(
      parseEndpointFlags([
        "--metrics-bind-address=:8443",
        "--metrics-secure",
        "--metrics-cert-path",
        "/certs",
        "--health-probe-bind-address=127.0.0.1:8081",
      ]),
      {
        metrics: {
          host: "0.0.0.0",
          port: 8443,
          secure: true,
          certDir: "/certs",
          certName: undefined,
          keyName: undefined,
        },
        health: { host: "127.0.0.1", port: 8081 },
      },
    );
  });

  it("leaves what is not given to the defaults, and --no-metrics-secure turns HTTPS off", () => {
    const { metrics, health } = parseEndpointFlags(["--no-metrics-secure"]);
    assert.equal(health, undefined);
    assert.deepEqual(metrics && { secure: metrics.secure, port: metrics.port, host: metrics.host }, {
      secure: false,
      port: undefined,
      host: undefined,
    });
  });

  it("turns the live page on with --live-page and off with --no-live-page; leaves it to the default otherwise", () => {
    assert.equal(parseEndpointFlags(["--live-page"]).livePage, true);
    assert.equal(parseEndpointFlags(["--no-live-page"]).livePage, false);
    assert.equal("livePage" in parseEndpointFlags([]), false);
  });

  it("turns an endpoint off with 0 and reads IPv6 addresses in brackets", () => {
    assert.deepEqual(
      parseEndpointFlags(["--metrics-bind-address=0", "--health-probe-bind-address=[::1]:9440"]),
      {
        metrics: false,
        health: { host: "::1", port: 9440 },
      },
    );
  });

  it("rejects unknown flags and bad addresses with EndpointFlagError naming the fix", () => {
    assert.throws(
      () => parseEndpointFlags(["--metrics-port=8080"]),
      (err: unknown) => {
        assert.ok(err instanceof EndpointFlagError);
        assert.equal(err.code, "KL_ENDPOINT_FLAG");
        assert.match(
          err.message,
          /Unknown option '--metrics-port'; the flags are --metrics-bind-address=<host:port>, --\[no-\]metrics-secure/,
        );
        return true;
      },
    );
    for (const bad of ["8080", "localhost", ":99999", "host:port"]) {
      assert.throws(
        () => endpointOptions({ healthProbeBindAddress: bad }),
        new RegExp(`--health-probe-bind-address "${bad}" is not an address to listen on; give host:port`),
      );
    }
  });
});

describe("parseOperatorFlags", () => {
  it("reads the endpoint flags and the sharding flags of an operator's container", () => {
    const options = parseOperatorFlags([
      "--health-probe-bind-address=:8081",
      "--shards=16",
      "--shard-key=uid",
    ]);
    assert.deepEqual(options.sharding, { shards: 16, key: "uid" });
    assert.deepEqual(options.health, { host: "0.0.0.0", port: 8081 });
    assert.equal(parseOperatorFlags([]).sharding, undefined);
    assert.deepEqual(parseOperatorFlags(["--shards=4"]).sharding, { shards: 4, key: "namespace" });
  });

  it("turns leader election off with --leader-elect=false, as kubebuilder's main.go reads it", () => {
    assert.equal(parseOperatorFlags(["--leader-elect=false"]).leaderElection, false);
    assert.equal(parseOperatorFlags(["--no-leader-elect"]).leaderElection, false);
    assert.equal(parseOperatorFlags(["--leader-elect=true"]).leaderElection, undefined, "on: the default");
    assert.equal(parseOperatorFlags(["--leader-elect"]).leaderElection, undefined);
    assert.equal(parseOperatorFlags([]).leaderElection, undefined);
    const { metrics } = parseOperatorFlags(["--metrics-secure=false"]);
    assert.ok(metrics, "metrics served");
    assert.equal(metrics.secure, false, "any boolean flag reads =false");
  });

  it("rejects a count that is no whole number from 1 and an unknown key, naming the fix", () => {
    assert.throws(
      () => parseOperatorFlags(["--shards=0"]),
      /--shards "0" is not a number of shards; give a whole number from 1/,
    );
    assert.throws(
      () => parseOperatorFlags(["--shards=2", "--shard-key=name"]),
      /--shard-key "name" is not a shard key/,
    );
    assert.throws(
      () => parseEndpointFlags(["--shards=2"]),
      EndpointFlagError,
      "the endpoint flags alone do not shard",
    );
  });
});
