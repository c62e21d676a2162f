# SPDX-License-Identifier: GPL-2.0
"""An independent reference for `rstat-analyze compare`, written from the
definitions its man page cites, not from its code:

- summaries as mmtests prints them: percentiles x[int((n - 1) p / 100 +
  0.5)] of the sorted pooled samples, arithmetic mean (harmonic for rates,
  where higher is better), sample standard deviation (n - 1), coefficient
  of variation in percent;
- the delta against the first side in percent: 100 - new * 100 / base where
  lower is better (and always for Stddev and CoeffVar), new * 100 / base -
  100 where higher is better;
- Welch's t-test: t = (m2 - m1) / sqrt(v1/n1 + v2/n2), Welch-Satterthwaite
  degrees of freedom, the two-sided p from Student's t distribution (its CDF
  through the regularized incomplete beta function, DLMF 8.17.22 and its
  continued fraction 8.17.22), significant when p < alpha;
- ministat's "Difference at 95.0% confidence" (FreeBSD's ministat.c,
  Relative()): the difference of the means +/- t(0.975, n1 + n2 - 2) *
  pooled s * sqrt(1/n1 + 1/n2), with ministat's table (quantiles to three
  decimals up to 100 degrees of freedom, 1.960 beyond), and its relative
  error as ministat computes it: t * sqrt(((nn - 1) vn + (nb - 1) vb *
  mn^2 / mb^2) * (nn + nb) / (nn nb (nn + nb - 2))) * 100 / mb, where only
  the base variance is scaled by the means' ratio (C precedence);
- profiles: shares in percent and their difference in points; span
  percentiles with the lower-is-better delta.

Used as a module by compare-values.sh: reference(files_per_side) returns
{label: [per-side dict]} for bench results.
"""
import json
import math


# --- Student's t distribution ------------------------------------------

def _betacf(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 1000):
        m2 = 2 * m
        num = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
        d = 1 + num * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + num / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
        d = 1 + num * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + num / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1) < eps:
            break
    return h


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lnfront = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
               a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return math.exp(lnfront) * _betacf(a, b, x) / a
    return 1 - math.exp(lnfront) * _betacf(b, a, 1 - x) / b


def t_two_sided_p(t, df):
    return betainc(df / 2, 0.5, df / (df + t * t))


def t_quantile(q, df):
    """The t with P(T <= t) = q (q > 0.5), by bisection of the CDF."""
    lo, hi = 0.0, 1e3
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - t_two_sided_p(mid, df) / 2 < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


# --- summaries -----------------------------------------------------------

PCT = (("p1", 1), ("p5", 5), ("p10", 10), ("p25", 25), ("p50", 50),
       ("p75", 75), ("p90", 90), ("p95", 95), ("p99", 99))


def percentile(xs, p):
    xs = sorted(xs)
    return xs[int((len(xs) - 1) * p / 100 + 0.5)]


def mean(xs):
    return sum(xs) / len(xs)


def stddev(xs):
    if len(xs) < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def summary(xs, better):
    s = {"n": len(xs), "min": min(xs), "max": max(xs)}
    for name, p in PCT:
        s[name] = percentile(xs, p)
    s["amean"] = mean(xs)
    if better == "higher" and all(x > 0 for x in xs):
        s["hmean"] = len(xs) / sum(1 / x for x in xs)
    s["stddev"] = stddev(xs)
    s["coeffvar"] = s["stddev"] * 100 / s["amean"] if s["amean"] else 0.0
    return s


def delta(row, base, new, better):
    if base == 0:
        return 0.0
    if better == "higher" and row not in ("stddev", "coeffvar"):
        return new * 100 / base - 100
    return 100 - new * 100 / base


def welch(a, b, alpha=0.05):
    n1, n2 = len(a), len(b)
    v1, v2 = stddev(a) ** 2, stddev(b) ** 2
    se2 = v1 / n1 + v2 / n2
    t = (mean(b) - mean(a)) / math.sqrt(se2)
    df = se2 ** 2 / ((v1 / n1) ** 2 / (n1 - 1) + (v2 / n2) ** 2 / (n2 - 1))
    p = t_two_sided_p(t, df)
    return {"t": t, "df": df, "p": p, "significant": p < alpha,
            "critical": t_quantile(1 - alpha / 2, df)}


def ministat(a, b):
    n1, n2 = len(a), len(b)
    df = n1 + n2 - 2
    s = math.sqrt(((n1 - 1) * stddev(a) ** 2 + (n2 - 1) * stddev(b) ** 2)
                  / df)
    t = round(t_quantile(0.975, df), 3) if df <= 100 else 1.960
    diff = mean(b) - mean(a)
    err = t * s * math.sqrt(1 / n1 + 1 / n2)
    ma, mb = mean(a), mean(b)
    re = ((n2 - 1) * stddev(b) ** 2 +
          (n1 - 1) * stddev(a) ** 2 * mb * mb / (ma * ma))
    re = t * math.sqrt(re * (n1 + n2) / (n1 * n2 * (n1 + n2 - 2)))
    return {"difference": diff, "error": err, "pooled_s": s,
            "difference_pct": diff * 100 / ma,
            "error_pct": re * 100 / ma,
            "significant": abs(diff) > err}


# --- bench results files -------------------------------------------------

def pools(paths):
    """{label: (unit, better, [values])} pooled over files and repetitions.
    A distribution (kind hist) of read_ns is FILE-us, its samples in us; a
    single figure per repetition (kind value) keeps its name."""
    out = {}
    for path in paths:
        doc = json.load(open(path))
        for rep in doc["repetitions"]:
            for m in rep["metrics"]:
                if m["kind"] == "hist":
                    label = "%s-us" % m["file"] if m.get("file") else \
                        m["name"] + "-us"
                    vals = [s / 1000 for s in m["samples"]]
                    unit = "us"
                else:
                    label, vals, unit = m["name"], [m["value"]], m["unit"]
                e = out.setdefault(label, (unit, m["better"], []))
                e[2].extend(vals)
    return out


def times(paths):
    """Mean real/user/sys seconds over the side's repetitions."""
    rows = {"real": [], "user": [], "sys": []}
    for path in paths:
        for rep in json.load(open(path))["repetitions"]:
            t = rep.get("time") or {}
            for k in rows:
                if k + "_s" in t:
                    rows[k].append(t[k + "_s"])
    return {k: mean(v) for k, v in rows.items() if v}


def reference(sides, alpha=0.05):
    """sides: [[file, ...], ...] -> {label: [per-side figures]}."""
    pooled = [pools(s) for s in sides]
    labels = set(pooled[0])
    for p in pooled[1:]:
        labels &= set(p)
    out = {}
    for label in sorted(labels):
        unit, better, base = pooled[0][label]
        rows = []
        bsum = summary(base, better)
        for i, p in enumerate(pooled):
            xs = p[label][2]
            s = summary(xs, better)
            s["delta_pct"] = {k: delta(k, bsum[k], v, better)
                              for k, v in s.items()
                              if k in bsum and k != "n"}
            if i and len(xs) > 1 and len(base) > 1:
                s["welch"] = welch(base, xs, alpha)
                s["ministat"] = ministat(base, xs)
            rows.append(s)
        out[label] = {"better": better, "unit": unit, "sides": rows}
    return out


def time_reference(sides):
    ts = [times(s) for s in sides]
    out = {}
    for k in ("real", "user", "sys"):
        if all(k in t for t in ts):
            out[k] = [(t[k], delta(k, ts[0][k], t[k], "lower")) for t in ts]
    return out


# --- report --json profiles ------------------------------------------------

def profile_reference(sides):
    """Shares (percent) per category and trigger of the first event, and
    span percentiles, per side."""
    out = {"category": {}, "trigger": {}, "span": {}}
    docs = [json.load(open(s[0])) for s in sides]
    for i, d in enumerate(docs):
        for a in d["attribution"]:
            out["category"].setdefault(a["category"], [0.0] * len(docs))[i] \
                = a["share"] * 100
        for t in d["triggers"]:
            out["trigger"].setdefault(t["trigger"], [0.0] * len(docs))[i] \
                = t["share"] * 100
        for s in d["spans"]:
            key = "%s %s" % (s["name"], s["subsystem"])
            e = out["span"].setdefault(key, [None] * len(docs))
            e[i] = {k: s[k + "_ns"] for k in ("p50", "p90", "p99")}
            e[i]["count"] = s["count"]
    return out


if __name__ == "__main__":
    import sys
    files = [a.split(",") for a in sys.argv[1:]]
    json.dump(reference(files), sys.stdout, indent=1, default=str)
    print()
    json.dump(time_reference(files), sys.stdout, indent=1)
    print()
