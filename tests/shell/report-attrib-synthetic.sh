#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Attribution on recordings of kernels this machine does not run: perf.data
# files written by tests/tools/gen-perf-data.py with the stacks of v4.19
# (cpu-clock, memcg tree walk, skid at IRQ re-enable), v6.1 (one rstat lock,
# cost split by callbacks; cycles) and v6.16 (css_rstat_flush under its
# caller; cycles).
#
# Expected values: every stack of a scenario carries its category, trigger
# and skid flag, declared by hand from docs/kernel-rstat.md (the generator
# only sums them per category/trigger into EXPECTED; it classifies
# nothing). Debian's perf is the oracle that the files are well formed:
# perf script must read them without a word on stderr and show exactly the
# samples and frames the scenario wrote.
. tests/shell/lib.sh
need_perf
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

gen=tests/tools/gen-perf-data.py
# SCENARIO[:EVENT]: the same stacks sampled by the other event too, so that
# the skid stacks show once with and once without a clock event.
scenarios="v6.1-cycles v4.19-cpuclock v6.16-cycles v6.1-cycles:cpu-clock
	v4.19-cpuclock:cycles"

# compare.py REPORT.json EXPECTED.json [RENAME_FROM RENAME_TO]: the report's
# attribution, triggers, skid and counts against the scenario's answers; an
# optional pair moves the expected samples of trigger FROM to trigger TO.
cat >"$TMP/compare.py" <<'EOF'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = json.load(open(sys.argv[2]))
ev = exp["event"]
bad = []
def want(cond, msg):
    if not cond:
        bad.append(msg)
etrig = dict(exp["triggers"])
if len(sys.argv) > 4:
    frm, to = sys.argv[3], sys.argv[4]
    etrig[to] = etrig.get(to, 0) + etrig.pop(frm, 0)
for key in ("attribution", "triggers", "skid", "counts", "spans"):
    want(key in rep, "no \"%s\" in the JSON" % key)
if bad:
    print("\n".join(bad)); sys.exit(1)
want(rep["header"].get("os_release") == exp["osrelease"],
     "header os_release %r, expected %r" % (rep["header"].get("os_release"),
                                             exp["osrelease"]))
cats = {"memory", "io", "base", "bpf", "core", "update", "psi",
        "memcg-walk", "other"}
attr = [a for a in rep["attribution"] if a["event"] == ev]
want(len(attr) == len(rep["attribution"]),
     "attribution names events other than %s" % ev)
got = {a["category"]: a["samples"] for a in attr}
gotp = {a["category"]: a["period"] for a in attr}
want(set(got) <= cats, "unknown categories %s" % (set(got) - cats))
want(all(a["samples"] > 0 for a in attr), "an entry with 0 samples")
want(got == exp["attribution"],
     "attribution samples %s, expected %s" % (got, exp["attribution"]))
want(gotp == exp["attribution_period"],
     "attribution period %s, expected %s" % (gotp, exp["attribution_period"]))
total = sum(exp["attribution_period"].values())
for a in attr:
    want(abs(a["share"] - a["period"] / total) < 1e-6,
         "share of %s is %s, expected %s" % (a["category"], a["share"],
                                              a["period"] / total))
trig = [t for t in rep["triggers"] if t["event"] == ev]
gott = {t["trigger"]: t["samples"] for t in trig if t["samples"]}
want(gott == etrig, "trigger samples %s, expected %s" % (gott, etrig))
if trig:
    want(abs(sum(t["share"] for t in trig) - 1) < 1e-6,
         "trigger shares do not add up to 1: %s" % [t["share"] for t in trig])
sk = rep["skid"]
if exp["skid_samples"]:
    want(sk is not None and sk.get("event") == ev and
         sk.get("samples") == exp["skid_samples"],
         "skid %s, expected %d samples of %s" % (sk, exp["skid_samples"], ev))
    if sk:
        want(0 < sk.get("fraction", 0) <= 1, "skid fraction %s" % sk)
else:
    want(sk is None or not sk.get("samples"),
         "skid %s, expected none" % (sk,))
counts = {c["event"]: c["count"] for c in rep["counts"]}
want(counts == {ev: exp["samples"]},
     "counts %s, expected {%s: %d}" % (counts, ev, exp["samples"]))
want(not [s for s in rep["spans"] if s["name"] == "lock-hold" and s["count"]],
     "lock-hold spans without any lock tracepoint")
if bad:
    print("\n".join(bad)); sys.exit(1)
EOF

for sc in $scenarios; do
	opt=(--scenario "${sc%:*}")
	[[ $sc == *:* ]] && opt+=(--event "${sc#*:}")
	d="$TMP/$sc.data" k="$TMP/$sc.kallsyms" e="$TMP/$sc.expected"
	python3 "$gen" "${opt[@]}" -o "$d" -k "$k" -e "$e" ||
		fail "$sc: gen-perf-data.py failed"

	# perf, the oracle of the file format.
	perf script -i "$d" --kallsyms "$k" >"$TMP/script" 2>"$TMP/perr" ||
		fail "$sc: perf script failed: $(head -c 1000 "$TMP/perr")"
	[ -s "$TMP/perr" ] &&
		fail "$sc: perf script warns: $(head -c 1000 "$TMP/perr")"
	python3 "$gen" "${opt[@]}" --check-script "$TMP/script" ||
		fail "$sc: perf script does not read what was written"
	perf report -i "$d" --kallsyms "$k" --stdio >/dev/null 2>"$TMP/perr" ||
		fail "$sc: perf report failed: $(head -c 1000 "$TMP/perr")"
	[ -s "$TMP/perr" ] &&
		fail "$sc: perf report warns: $(head -c 1000 "$TMP/perr")"

	# Our reading of the same file, folded, is perf's.
	"$RS_BIN" report -i "$d" --kallsyms "$k" --folded >"$TMP/ours" ||
		fail "$sc: report --folded failed"
	"$RS_BIN" report -i "$TMP/script" --folded >"$TMP/theirs" ||
		fail "$sc: report --folded of perf script's text failed"
	cmp -s "$TMP/ours" "$TMP/theirs" ||
		fail "$sc: folded stacks differ from perf script's: $(diff "$TMP/theirs" "$TMP/ours" | head -n 10)"

	# Attribution.
	"$RS_BIN" report -i "$d" --kallsyms "$k" --json >"$TMP/rep.json" \
		2>"$TMP/err" || fail "$sc: report --json failed: $(cat "$TMP/err")"
	python3 "$TMP/compare.py" "$TMP/rep.json" "$e" ||
		fail "$sc: report --json differs from the declared answers"

	# One skid warning with the clock event, none with cycles.
	n=$(grep -ci 'skid' "$TMP/err")
	if [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["skid_samples"])' "$e")" -gt 0 ]; then
		[ "$n" -eq 1 ] ||
			fail "$sc: $n skid lines on stderr, expected 1: $(cat "$TMP/err")"
		grep -i skid "$TMP/err" | grep -q PMU ||
			fail "$sc: the skid warning does not mention a PMU: $(cat "$TMP/err")"
	else
		[ "$n" -eq 0 ] ||
			fail "$sc: skid warning without a clock event: $(cat "$TMP/err")"
	fi

	# Text and CSV tables name every category found.
	for fmt in text csv; do
		fopt=()
		[ $fmt = csv ] && fopt=(--csv)
		"$RS_BIN" report -i "$d" --kallsyms "$k" "${fopt[@]}" \
			>"$TMP/out.$fmt" 2>"$TMP/err" ||
			fail "$sc: $fmt report failed: $(cat "$TMP/err")"
		for c in $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["attribution"]))' "$e"); do
			grep -Eq "(^|[^a-z-])$c([^a-z-]|$)" "$TMP/out.$fmt" ||
				fail "$sc: $fmt report does not name category $c"
		done
	done

	# The dumped rule table loads back and changes nothing.
	"$RS_BIN" report --rules-dump >"$TMP/dump.rules" ||
		fail "--rules-dump failed"
	"$RS_BIN" report -i "$d" --kallsyms "$k" --rules "$TMP/dump.rules" \
		--json >"$TMP/rep2.json" 2>/dev/null ||
		fail "$sc: report with the dumped rules failed"
	python3 "$TMP/compare.py" "$TMP/rep2.json" "$e" ||
		fail "$sc: the dumped rule table classifies differently"
	echo "ok $sc: $(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print(e["samples"], "samples,", e["attribution"], e["triggers"], "skid", e["skid_samples"])' "$e")"
done

# --rules: a syntax error names FILE:LINE and stops (exit 1).
printf '# a comment, then a good rule, then a bad one\nmemory_stat_show caller:memory other\nmem_cgroup_usage memory\n' \
	>"$TMP/bad.rules"
sc=v6.1-cycles
expect_error 1 "$TMP/bad.rules:3([^0-9]|$)" "$RS_BIN" report \
	-i "$TMP/$sc.data" --kallsyms "$TMP/$sc.kallsyms" --rules "$TMP/bad.rules"
echo "ok --rules with a bad line 3: $(grep -v note: "$TMP/stderr")"

# --rules overriding a built-in: memory_stat_show keeps naming the memory
# subsystem but no longer a trigger ("other"). Every memory.stat flush of
# v6.1-cycles reads through memory_stat_show (its outermost trigger frame),
# so all of them move from memory.stat to other; categories stay.
printf 'memory_stat_show caller:memory other\n' >"$TMP/other.rules"
"$RS_BIN" report -i "$TMP/$sc.data" --kallsyms "$TMP/$sc.kallsyms" \
	--rules "$TMP/other.rules" --json >"$TMP/rep.json" 2>"$TMP/err" ||
	fail "--rules $TMP/other.rules failed: $(cat "$TMP/err")"
python3 "$TMP/compare.py" "$TMP/rep.json" "$TMP/$sc.expected" \
	memory.stat other || fail "--rules did not move memory.stat to other"
echo "ok --rules moves memory.stat flushes to trigger other"
exit 0
