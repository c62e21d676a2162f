#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/beside.txt lists the shell tests that tests/run.sh runs in a lane
# beside the others; each must touch nothing on the machine outside its
# own $TMP. Checked for each: it exists, it is not a VM test, it reads no
# machine state that others change and runs no perf record (cgroup,
# bpftool, tracefs, /sys/kernel, the VM work directories), and it runs
# the tool for nothing but what reads files: an allowlist. Each use of
# the tool in the test's text ($RS_BIN, $RS_TOOL, a variable set to one
# of them or to a path of rstat-analyze, ./rstat-analyze, build/../
# rstat-analyze; lines continued with a backslash joined first) must be
# followed by report, compare, plot or diff-folded, by --help, -h or
# --version, by an invalid command spelled no-such-..., by any command
# and then --help, -h or --list-options, or be an argument (followed by
# nothing, a redirection, a pipe, `]`). Anything else fails: another
# command, an option first, a variable ("$@", "$c" without --help), an
# array ending after the tool. A use anywhere in a string a shell runs
# (sh -c "...", bash -c, eval) counts. The tool named in a message is
# not a use; one passed to a python3 script is not followed: helpers and
# scripts the test runs are not looked into (tests/beside.txt says so).
# Planted lines of each kind are caught, and allowed ones pass, so the
# check itself works.
. tests/shell/lib.sh
. tests/shell/beside-lib.sh
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"

touches='perf +record|need_perf|cgroup|bpftool|tracefs|/sys/kernel|vm_workdirs'

# tool_uses FILE...: each use of the tool that the allowlist refuses,
# FILE:LINE: TEXT, one a line.
tool_uses() {
	python3 - "$@" <<'PY'
import re, sys

allowed = {"report", "compare", "plot", "diff-folded",
           "--help", "-h", "--version"}
help_after = {"--help", "-h", "--list-options"}
# After the tool: the end of the command, or a redirection, a pipe, the
# end of a test or of a $(...): the tool is an argument there, or runs
# with no command.
end = re.compile(r"^(\d*[<>]|[|;&\]`)]|$)")

def open_quote(text):
    """Where the string open at the end of text began, or None."""
    q, at = None, None
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and q != "'":
            i += 1
        elif q is None and c in "'\"":
            q, at = c, i
        elif c == q:
            q = None
        i += 1
    return at if q is not None else None

for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    # Continued lines joined, each kept with its first line's number.
    joined, i = [], 0
    while i < len(lines):
        no, text = i + 1, lines[i]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        i += 1
        if not text.lstrip().startswith("#"):
            joined.append((no, text))
    names = ["RS_BIN", "RS_TOOL"]
    # Variables set to the tool: NAME=$RS_BIN, NAME=$PWD/rstat-analyze,
    # NAME=.../bin/rstat-analyze (not completion/rstat-analyze).
    for _, text in joined:
        for m in re.finditer(r"\b(\w+)=[\"']?(\S*)", text):
            v = m.group(2).rstrip("\"'")
            if re.search(r"RS_BIN|RS_TOOL|"
                         r"(bin|build\S*|\$PWD|^\.)/rstat-analyze\}?$", v):
                names.append(m.group(1))
    ref = re.compile(r"""(?<![\w=])(\$\{?(%s)\b[^\s"'})]*\}?"""
                     r"""|(\./|build/\S*/)rstat-analyze\b)["']?"""
                     % "|".join(map(re.escape, set(names))))
    for no, text in joined:
        for m in ref.finditer(text):
            before = text[:m.start()]
            # NAME=$RS_BIN: a name for the tool, checked where used.
            if before.rstrip("\"'").endswith("="):
                continue
            # Inside a quoted string, only one that starts a word of it
            # runs ("$RS_BIN" ..., sh -c "'$RS_BIN' ..."), or any in a
            # string a shell runs (sh -c "cd x && $RS_BIN ...", eval):
            # the rest is text ("could not run $tool on $f").
            q = open_quote(before)
            if q is not None and before[-1:] not in ("'", '"') and \
                    not re.search(r"(\s-c|\beval)\s*$", before[:q]):
                continue
            # An argument of a python3 script: a helper, not looked into.
            if re.search(r"\bpython3\b[^;|&]*$", before):
                continue
            # "report)" ends a subshell: report; a lone ")" ends an
            # array that holds the tool alone, which is refused.
            words = [w.strip("\"'") for w in text[m.end():].split()]
            words = [re.sub(r"(?<=.)[);]+$", "", w) for w in words]
            w1 = words[0] if words else ""
            w2 = words[1] if len(words) > 1 else ""
            # An array of the tool alone runs whatever follows it.
            alone = w1 == ")" and before.rstrip("\"'").endswith("=(")
            if (w1 in allowed or w1.startswith("no-such-") or
                    w2 in help_after or (end.match(w1) and not alone)):
                continue
            print("%s:%d: %s" % (path, no, text.strip()))
PY
}

n=0
while read -r t; do
	case $t in
	shell/*) ;;
	*) fail "tests/beside.txt: $t: only shell tests run beside others" ;;
	esac
	f=tests/shell/${t#shell/}.sh
	[ -f "$f" ] || fail "tests/beside.txt: $t: no $f"
	case $t in shell/vm-*) fail "tests/beside.txt: $t: a VM test" ;; esac
	hit=$(grep -nE "$touches" "$f" | head -n 3)
	[ -z "$hit" ] || fail "tests/beside.txt: $t touches the machine: $hit"
	hit=$(tool_uses "$f")
	[ -z "$hit" ] ||
		fail "tests/beside.txt: $t runs the tool for more than reading files: $hit"
	n=$((n + 1))
done < <(beside_tests)
[ "$n" -ge 1 ] || fail "tests/beside.txt lists no test"

# The check catches each kind ...
for line in 'perf record -a' 'mkdir /sys/fs/cgroup/unified/x' \
	'ls /sys/kernel/tracing/instances'; do
	echo "$line" | grep -qE "$touches" ||
		fail "the check misses: $line"
done
i=0
for text in '"$RS_BIN" record -o x' \
	$'"$RS_BIN" \\\n\tbench --kernel "$K61"' \
	'timeout 60 "$RS_BIN" -q top' \
	'run() { "$RS_BIN" "$@"; }' \
	'cmd=("$RS_BIN" watch); "${cmd[@]}"' \
	'cmd=("$RS_BIN"); "${cmd[@]}" doctor' \
	$'tool=$RS_TOOL\n"$tool" probe' \
	'sh -c "'"'"'$RS_BIN'"'"' record -a"' \
	'sh -c "cd /tmp && $RS_BIN record -a"' \
	'bash -c "x=1; $RS_BIN bench"' 'eval "$RS_BIN watch"' \
	'./rstat-analyze bench' 'build/san/rstat-analyze record'; do
	i=$((i + 1))
	printf '%s\n' "$text" >"$TMP/planted$i.sh"
	[ -n "$(tool_uses "$TMP/planted$i.sh")" ] ||
		fail "the check misses: $text"
done
# ... and lets what reads files pass.
i=0
for text in '"$RS_BIN" report -i x --folded >"$TMP/out"' \
	$'timeout 60 "$RS_BIN" \\\n\tcompare a.json b.json' \
	'expect_error 2 "not a command" "$RS_BIN" no-such-command' \
	'"$RS_BIN" "$c" --help >"$TMP/help"' '"$RS_BIN" --version' \
	'[ -x "$RS_BIN" ] || fail' 'readelf -h "$RS_BIN" | grep -q DYN' \
	'sh -c "cd /tmp && $RS_BIN report -i x"' \
	'fail "could not run $RS_BIN record on $f"' \
	$'bin=$TMP/usr/bin/rstat-analyze\n"$bin" plot -i x'; do
	i=$((i + 1))
	printf '%s\n' "$text" >"$TMP/allowed$i.sh"
	hit=$(tool_uses "$TMP/allowed$i.sh")
	[ -z "$hit" ] || fail "the check refuses: $hit"
done
echo "ok: $n tests run beside the others, none touches the machine"
