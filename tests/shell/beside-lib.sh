# SPDX-License-Identifier: GPL-2.0
# Shared by tests/run.sh and shell/beside-lane (sourced, from the
# repository root): what tests/beside.txt lists.

# beside_tests: the tests tests/beside.txt lists (shell/NAME), one a line.
beside_tests() {
	sed 's/#.*//' tests/beside.txt | tr -s ' \t' '\n' | grep .
}
