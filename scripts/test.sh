#!/bin/bash
# The test command: set up and build what is missing, then run the suite.
# Always ends with one line "N passed, N failed" (", N skipped" when a
# test could not run here).
. "$(dirname "$0")/lib.sh"

if ! make -C "$TOP" --no-print-directory build; then
	echo "error: the build failed before any test could run (logs in ${LOGS#"$TOP"/})" >&2
	echo "0 passed, 1 failed"
	exit 1
fi
# The trees under test stay put: no suite's newer point release is
# fetched while the suite runs (lib.sh: pool_update)
export POOL_FROZEN=1
# The suite boots the test kernel (lockdep, KASAN, UBSAN ...); the tests
# that need the production kernel's speed say so themselves.
KFLAVOR=debug exec python3 "$TOP/tests/run.py" "$@"
