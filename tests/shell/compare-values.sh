#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# compare's every printed figure against an independent reference
# (tests/shell/compare-ref.py, written from mmtests', Welch's and
# ministat's definitions, not from our code): each summary row and its
# delta, the time(1) rows, Welch's t, degrees of freedom, p and verdict,
# ministat's difference, error, percentages and pooled s, and the profile
# shares and span percentiles; in JSON, in CSV and in the text table, on
# two, three and single-value sides. CSV and JSON must also hold the values
# the text table shows (so a column mix-up in one format is caught).
. tests/shell/lib.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
D=$RS_FIXTURES/compare

# run NAME SIDES...: the three formats of one comparison, from $D.
run() {
	local name=$1 f
	shift
	# --details: the text's whole table, time(1) and ministat (the
	# default's rows are these, compare.sh checks).
	for f in text csv json; do
		(cd "$D" && timeout 60 "$RS_BIN" compare "$@" --format "$f" \
			--details) \
			>"$TMP/$name.$f" 2>"$TMP/err" ||
			fail "compare $* --format $f: $(cat "$TMP/err")"
	done
}
run two base.json -- new.json
run three base.json base2.json -- new.json -- newer.json
run single single-a.json -- single-b.json
run profile prof-a.json -- prof-b.json

PYTHONPATH=tests/shell python3 - "$TMP" "$D" <<'PY' ||
import csv, io, json, math, re, sys
import importlib
ref = importlib.import_module("compare-ref")
tmp, d = sys.argv[1], sys.argv[2]
ROWS = {"Min": "min", "1st-qrtle": "p25", "2nd-qrtle": "p50",
        "3rd-qrtle": "p75", "Max-1": "p1", "Max-5": "p5", "Max-10": "p10",
        "Max-90": "p90", "Max-95": "p95", "Max-99": "p99", "Max": "max",
        "Amean": "amean", "Hmean": "hmean", "Stddev": "stddev",
        "CoeffVar": "coeffvar"}
bad = []


def near(got, want, what, rel=1e-6, absol=1e-9):
    if want is None or got is None:
        if got != want:
            bad.append("%s: %r, expected %r" % (what, got, want))
        return
    if not math.isclose(float(got), float(want), rel_tol=rel,
                        abs_tol=absol):
        bad.append("%s: %r, expected %r" % (what, got, want))


def bench(name, sides):
    files = [[d + "/" + f for f in s] for s in sides]
    want = ref.reference(files)
    times = ref.time_reference(files)
    js = json.load(open("%s/%s.json" % (tmp, name)))
    labels = js["sides"]
    got = {m["label"]: m for m in js["metrics"]}
    if set(got) != set(want):
        bad.append("%s: metrics %s, expected %s" % (name, sorted(got),
                                                   sorted(want)))
    # JSON against the reference.
    for label, w in want.items():
        for i, ws in enumerate(w["sides"]):
            gs = got[label]["sides"][i]
            near(gs.get("n"), ws["n"], "%s json %s n" % (name, label))
            for k in ("min", "max", "stddev", "coeffvar") + \
                    tuple(p for p, _ in ref.PCT) + \
                    (("hmean",) if "hmean" in ws else ("amean",)):
                near(gs.get(k), ws[k], "%s json %s %s %s" % (
                    name, label, labels[i], k))
                near(gs["delta_pct"].get(k), ws["delta_pct"][k],
                     "%s json %s %s delta %s" % (name, label, labels[i], k))
            if "welch" in ws:
                for k in ("t", "df", "p", "critical"):
                    near(gs["welch"][k], ws["welch"][k], "%s json %s %s "
                         "welch %s" % (name, label, labels[i], k), rel=1e-5)
                if gs["welch"]["significant"] != ws["welch"]["significant"]:
                    bad.append("%s %s: welch verdict" % (name, label))
                for k in ("difference", "error", "difference_pct",
                          "error_pct", "pooled_s"):
                    near(gs["ministat"][k], ws["ministat"][k],
                         "%s json %s %s ministat %s" % (name, label,
                                                        labels[i], k))
                if gs["ministat"]["significant"] != \
                        ws["ministat"]["significant"]:
                    bad.append("%s %s: ministat verdict" % (name, label))
            elif i:
                if gs["welch"]["t"] is not None or gs["welch"]["significant"]:
                    bad.append("%s %s: a test on one value" % (name, label))
    for i, t in enumerate(js["time"]):
        for k, rows in times.items():
            near(t[k + "_s"], rows[i][0], "%s json time %s" % (name, k))

    # CSV against the reference, row by row.
    raw = open("%s/%s.csv" % (tmp, name), newline="").read()
    rows = list(csv.reader(io.StringIO(raw)))[1:]
    seen = nverdict = 0
    for block, row, label, side, value, dlt, sig in rows:
        i = labels.index(side)
        seen += 1
        what = "%s csv %s,%s,%s,%s" % (name, block, row, label, side)
        if block == "summary":
            ws = want[label]["sides"][i]
            k = ROWS[row]
            near(value, ws[k], what)
            near(dlt, ws["delta_pct"][k], what + " delta")
        elif block == "time":
            near(value, times[row][i][0], what)
            near(dlt, times[row][i][1], what + " delta")
        elif block == "welch":
            ws = want[label]["sides"][i].get("welch")
            if ws is None:
                if value or sig != "no":
                    bad.append(what + ": a test on one value")
                continue
            near(value, ws[row], what, rel=1e-5)
            if sig != ("yes" if ws["significant"] else "no"):
                bad.append(what + ": verdict " + sig)
        elif block == "ministat":
            ws = want[label]["sides"][i].get("ministat")
            if ws is None:
                if value or sig != "no":
                    bad.append(what + ": a test on one value")
                continue
            near(value, ws[row], what)
            if row in ("difference", "error"):
                near(dlt, ws[row + "_pct"], what + " %")
            if sig != ("yes" if ws["significant"] else "no"):
                bad.append(what + ": verdict " + sig)
        elif block == "verdict":
            # The JSON's verdict, row for row (compare-verdicts.sh holds
            # the verdicts themselves against scipy).
            v = got[label]["sides"][i]["verdict"]
            key = {"median_diff": ("median_diff", "estimate"),
                   "median_diff_low": ("median_diff", "low"),
                   "median_diff_high": ("median_diff", "high"),
                   "mann_whitney_p": ("mann_whitney", "p")}.get(row)
            near(value or None, v[key[0]][key[1]] if key else v[row], what)
            if sig != ("yes" if v["significant"] else "no"):
                bad.append(what + ": verdict " + sig)
            nverdict += 1
        else:
            bad.append(what + ": unexpected block")
    # Every figure of the reference has its CSV row.
    nsum = sum(len([k for k in ROWS.values() if k in s and
                    (k != "amean" or "hmean" not in s)])
               for w in want.values() for s in w["sides"])
    ntests = sum(6 for w in want.values() for s in w["sides"][1:])
    # A verdict: seven rows for a distribution, one for a single figure.
    nv = sum(7 if got[lb]["sides"][1]["verdict"]["decided_by"] == "median"
             else 1 for lb in got) * (len(labels) - 1)
    if nverdict != nv:
        bad.append("%s csv: %d verdict rows, expected %d" % (name, nverdict, nv))
    if seen != nsum + ntests + 3 * len(labels) + nv:
        bad.append("%s csv: %d rows, expected %d" % (
            name, seen, nsum + ntests + 3 * len(labels) + nv))

    # The text table: the figures as printed (2 decimals) and the stars.
    text = open("%s/%s.text" % (tmp, name)).read().splitlines()
    nrows = 0
    cols = list(range(len(labels)))
    for line in text:
        # A table's header names its sides (three sides: two tables).
        if line.split() and all(t in labels for t in line.split()):
            cols = [labels.index(t) for t in line.split()]
            continue
        m = re.match(r"^(\S+)\s+(\S+)((?:\s+[-0-9.]+ [(*] *[-0-9.]+%[)*])+)$",
                     line)
        if not m or m.group(1) not in ROWS:
            continue
        cells = re.findall(r"([-0-9.]+) ([(*]) *([-0-9.]+)%[)*]",
                           m.group(3))
        w = want[m.group(2)]
        for c, (v, mark, dl) in enumerate(cells):
            i = cols[c]
            ws, k = w["sides"][i], ROWS[m.group(1)]
            near(v, ws[k], "%s text %s" % (name, line), rel=0, absol=0.0051)
            near(dl, ws["delta_pct"][k], "%s text %s delta" % (name, line),
                 rel=0, absol=0.0051)
            star = mark == "*"
            sig = k in ("amean", "hmean") and i and \
                ws.get("welch", {}).get("significant", False)
            if star != bool(sig):
                bad.append("%s text: star on %s" % (name, line))
        nrows += 1
    if nrows != (len(labels) - 1) * len(
            [1 for w in want.values() for k in ROWS.values()
             if k in w["sides"][0] and
             (k != "amean" or "hmean" not in w["sides"][0])]):
        bad.append("%s text: %d summary rows" % (name, nrows))
    cols = list(range(len(labels)))
    for line in text:
        if line.split() and all(t in labels for t in line.split()):
            cols = [labels.index(t) for t in line.split()]
            continue
        m = re.match(r"^(real|user|sys)\s+((?:\s*\d+m[0-9.]+s \( *[-0-9.]+%\))+)$",
                     line)
        if not m:
            continue
        for c, (mins, secs, dl) in enumerate(re.findall(
                r"(\d+)m([0-9.]+)s \( *([-0-9.]+)%\)", m.group(2))):
            i = cols[c]
            near(int(mins) * 60 + float(secs), times[m.group(1)][i][0],
                 "%s text %s" % (name, line), rel=0, absol=0.0006)
            near(dl, times[m.group(1)][i][1], "%s text %s delta" % (
                name, line), rel=0, absol=0.0051)
    # ministat's block: "%g" figures, six significant digits.
    block = "\n".join(text)
    for label, w in want.items():
        for i, ws in enumerate(w["sides"][1:], 1):
            if "ministat" not in ws:
                continue
            ms = ws["ministat"]
            m = re.search(r"ministat %s:\n(?:.*\n){%d}Difference at 95.0%% "
                          r"confidence\n\t(\S+) \+/- (\S+)\n\t(\S+)%% \+/- "
                          r"(\S+)%%\n\t\(Student's t, pooled s = (\S+)\)"
                          % (re.escape(label), 3 + len(w["sides"])), block)
            if not ms["significant"]:
                continue
            if not m:
                bad.append("%s text: no ministat difference for %s" % (
                    name, label))
                continue
            for g, k in zip(m.groups(), ("difference", "error",
                                         "difference_pct", "error_pct",
                                         "pooled_s")):
                near(g, ms[k], "%s text ministat %s %s" % (name, label, k),
                     rel=1e-5)
    print("ok %s: %d metrics, %d csv rows, %d text rows" % (
        name, len(want), seen, nrows))


bench("two", [["base.json"], ["new.json"]])
bench("three", [["base.json", "base2.json"], ["new.json"], ["newer.json"]])
bench("single", [["single-a.json"], ["single-b.json"]])

# Profiles: shares in percent, points against the first side, spans.
want = ref.profile_reference([[d + "/prof-a.json"], [d + "/prof-b.json"]])
rows = list(csv.reader(open(tmp + "/profile.csv", newline="")))[1:]
labels = ["prof-a", "prof-b"]
nrow = 0
for block, row, label, side, value, dlt, sig in rows:
    i = labels.index(side)
    what = "profile csv %s,%s,%s" % (block, row, side)
    if i == 0 or row == "count":
        if dlt != "":
            bad.append(what + ": a delta on the first side or a count")
    if block in ("category", "trigger"):
        w = want[block][label]
        near(value, w[i], what)
        if i:
            near(dlt, w[i] - w[0], what + " points")
    elif block == "span":
        w = want["span"][label][i]
        near(value, w[row], what)
        if i and row != "count":
            near(dlt, 100 - w[row] * 100 / want["span"][label][0][row],
                 what + " delta")
    else:
        bad.append(what + ": unexpected block")
    nrow += 1
text = open(tmp + "/profile.text").read()
for block in ("category", "trigger"):
    for row, w in want[block].items():
        m = re.search(r"^%s +([0-9.]+)%% \( *([-+0-9.]+)\) +([0-9.]+)%% \( *"
                      r"([-+0-9.]+)\)$" % re.escape(row), text, re.M)
        if not m:
            bad.append("profile text: no row %s" % row)
            continue
        for i in (0, 1):
            near(m.group(1 + 2 * i), w[i], "profile text %s" % row, rel=0,
                 absol=0.0051)
            near(m.group(2 + 2 * i), w[i] - w[0], "profile text %s pp" % row,
                 rel=0, absol=0.051)
print("ok profile: %d csv rows" % nrow)
if bad:
    print("\n".join(bad[:30]))
    sys.exit("%d figures differ from the reference" % len(bad))
PY
	fail "compare's figures differ from the reference"
exit 0
