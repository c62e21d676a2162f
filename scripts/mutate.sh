#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check of our own tests: plant each bug of scripts/mutants.txt,
# one at a time, in a scratch copy of the tree (a directory made with
# mktemp -d, never a work tree anyone uses), rebuild, run the tests the
# entry names, and say which test caught it. Prints the score last and
# exits 0 only when every bug was caught (a bug that does not build, or
# whose text is not found exactly once, is an error of the list).
#
# Usage: scripts/mutate.sh [--list] [NAME...]   (default: every entry)
#
# The copy starts from this tree's files and its build/ (so each mutant
# rebuilds only what the changed file touches); run `make tests` first.
# Tests run as the caller: as root on a machine like CI's, the record and
# bench tests run too. The scratch directory goes on every exit path.
set -u
cd "$(dirname "$0")/.."
root=$PWD
list=$root/scripts/mutants.txt

# mutants.py CMD [ARGS]: the list's parser and the one place that edits.
mutants() {
	python3 - "$list" "$@" <<'PY'
import re, sys
path, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
entries, cur = [], None
for n, line in enumerate(open(path), 1):
    line = line.rstrip("\n")
    m = re.match(r"^\[([\w-]+)\] (\S+)$", line)
    if m:
        cur = {"name": m.group(1), "file": m.group(2), "line": n}
        entries.append(cur)
        continue
    m = re.match(r"^(tests|why|old|new): (.*)$", line)
    if m and cur is not None:
        cur[m.group(1)] = m.group(2)
for e in entries:
    for k in ("tests", "why", "old", "new"):
        if k not in e:
            sys.exit("%s:%d: [%s] has no '%s:'" % (path, e["line"],
                                                   e["name"], k))
if len({e["name"] for e in entries}) != len(entries):
    sys.exit("%s: two entries share a name" % path)


def unescape(s):
    return s.replace("\\t", "\t").replace("\\n", "\n")


if cmd == "list":
    for e in entries:
        print("\t".join((e["name"], e["file"], e["tests"], e["why"])))
elif cmd == "apply":
    name, tree = args
    e = next((e for e in entries if e["name"] == name), None)
    if not e:
        sys.exit("no entry [%s] in %s" % (name, path))
    src = open(tree + "/" + e["file"]).read()
    old, new = unescape(e["old"]), unescape(e["new"])
    if src.count(old) != 1:
        sys.exit("[%s]: 'old' occurs %d times in %s, not once" %
                 (name, src.count(old), e["file"]))
    open(tree + "/" + e["file"], "w").write(src.replace(old, new))
PY
}

if [ "${1:-}" = --list ]; then
	mutants list | awk -F'\t' '{ printf "%-30s %-28s %s\n", $1, $2, $4 }'
	exit
fi
command -v python3 >/dev/null || { echo "mutate.sh: needs python3" >&2; exit 1; }
[ -x build/san/rstat-analyze ] ||
	{ echo "mutate.sh: build the tests first (make tests)" >&2; exit 1; }
all=$(mutants list) || exit 1

scratch=$(mktemp -d) || exit 1
cleanup() {
	rm -rf "$scratch"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

tree=$scratch/tree
mkdir "$tree"
# The tree as it is (tracked and new files), and what is built of it.
git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp --parents -a -t "$tree" 2>/dev/null
cp -a build rstat-analyze "$tree/"
# No other run's results: a fresh build of the unmutated copy first.
(cd "$tree" && nice make -s tests >"$scratch/make.log" 2>&1) ||
	{ echo "mutate.sh: the unmutated copy does not build:" >&2
	  tail -5 "$scratch/make.log" >&2; exit 1; }

want=("$@")
total=0 caught=0 errors=0
while IFS=$'\t' read -r name file tests why; do
	if [ ${#want[@]} -gt 0 ] && [[ " ${want[*]} " != *" $name "* ]]; then
		continue
	fi
	total=$((total + 1))
	cp "$tree/$file" "$scratch/orig"
	if ! mutants apply "$name" "$tree" 2>"$scratch/err"; then
		echo "ERROR  $name: $(cat "$scratch/err")"
		errors=$((errors + 1))
		continue
	fi
	start=$(date +%s)
	by=
	if ! (cd "$tree" && nice make -s tests >"$scratch/make.log" 2>&1); then
		echo "ERROR  $name: does not build: $(grep -m1 error "$scratch/make.log")"
		errors=$((errors + 1))
	else
		for t in $tests; do
			# env -u CI: a filtered run, not the CI's whole one.
			if ! (cd "$tree" && env -u CI tests/run.sh "$t" \
				>"$scratch/$name.$t.log" 2>&1); then
				by=$t
				break
			fi
		done
		if [ -n "$by" ]; then
			caught=$((caught + 1))
			echo "caught $name ($file) by $by: $(grep -m1 '^FAIL' \
				"$scratch/$name.$by.log" | cut -c1-90) [$(($(date +%s) - start)) s]"
		else
			echo "MISSED $name ($file): $why [tests: $tests]"
		fi
	fi
	# Back to the original; make rebuilds it with the next mutant.
	cat "$scratch/orig" >"$tree/$file"
done <<<"$all"

echo "mutation score: $caught of $total planted bugs caught$([ "$errors" -gt 0 ] && echo ", $errors errors in the list")"
[ "$caught" -eq "$total" ] && [ "$errors" -eq 0 ]
