import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exposition, PromqlSyntaxError, queryProblems } from "../../../src/testing/index.ts";
import { metricReferences } from "../../../src/testing/internal/promql.ts";

const refs = (expr: string) =>
  metricReferences(expr).map(({ metric, labels }) => `${metric}{${labels.join(",")}}`);

describe("metricReferences", () => {
  it("tells metrics from functions, aggregations, keywords, label names, numbers and durations", () => {
    assert.deepEqual(refs('sum by (controller) (rate(controller_runtime_reconcile_total{job="w"}[5m]))'), [
      "controller_runtime_reconcile_total{job,controller}",
    ]);
    assert.deepEqual(
      refs("sum(rate(x_total[5m] offset 1h)) without (pod) > bool 0.5 and on (a) y unless z"),
      ["x_total{a}", "y{a}", "z{}"],
    );
    assert.deepEqual(refs("-inf + NaN * 1e-3 + 0x1f - vector(0) or absent(up)"), ["up{}"]);
  });

  it("applies a by clause written after the arguments, and on and group_left labels to both sides", () => {
    assert.deepEqual(
      refs('histogram_quantile(0.99, sum(rate(h_bucket{a=~"$x"}[$__rate_interval])) by (name, le))'),
      ["h_bucket{a,name,le}"],
    );
    assert.deepEqual(refs("a / on (x) group_left (y) b"), ["a{x,y}", "b{x,y}"]);
  });

  it("reads a subquery's range, a __name__ matcher, strings and Grafana's variables as what they are", () => {
    assert.deepEqual(refs(`min_over_time(sum by (c) (d{e!="1",})[15m:1m]) > \${threshold}`), ["d{e,c}"]);
    assert.deepEqual(refs('{__name__="up", job="a"}'), ["up{job}"]);
    assert.deepEqual(refs('count_values("value", q)'), ["q{}"]);
  });

  it("refuses what is not PromQL, naming where", () => {
    for (const bad of ["sum(rate(x[5m])", "x{a=1}", "x{a}", "sum by x (y)", "a ? b"]) {
      assert.throws(
        () => metricReferences(bad),
        (err: unknown) =>
          err instanceof PromqlSyntaxError &&
          err.code === "KL_PROMQL_SYNTAX" &&
          err.message.includes(`\`${bad}\``),
        bad,
      );
    }
  });
});

const text = [
  "# HELP c_total A counter.",
  "# TYPE c_total counter",
  'c_total{controller="w",result="success"} 3',
  "# TYPE never_total counter",
  "# TYPE h histogram",
  'h_bucket{le="0.1",verb="GET"} 1',
  'h_bucket{le="+Inf",verb="GET"} 1',
  'h_sum{verb="GET"} 0.05',
  'h_count{verb="GET"} 1',
  "",
].join("\n");

describe("exposition and queryProblems", () => {
  it("lists each family's series with their label names, a histogram's under its suffixes", () => {
    const exposed = exposition(text);
    assert.deepEqual([...(exposed.get("c_total")?.labels ?? [])], ["controller", "result"]);
    assert.equal(exposed.get("never_total")?.series, 0);
    assert.deepEqual([...(exposed.get("h_bucket")?.labels ?? [])], ["le", "verb"]);
    assert.equal(exposed.get("h_count")?.series, 1);
    assert.equal(exposed.get("h"), undefined);
  });

  it("reports metrics not exposed and labels no series carries, but not the scrape's target labels", () => {
    const exposed = exposition(text);
    assert.deepEqual(
      queryProblems('sum by (controller, job) (rate(c_total{job="w"}[5m]))', exposed, ["job"]),
      [],
    );
    assert.deepEqual(queryProblems("sum by (kind) (never_total) + h_count", exposed), []);
    assert.deepEqual(queryProblems("sum by (kind) (c_total) + h_total", exposed), [
      "c_total has no label kind (its labels: controller, result)",
      "h_total is not exposed",
    ]);
  });
});
