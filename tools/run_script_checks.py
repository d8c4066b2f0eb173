#!/usr/bin/env python3
"""Runs the Python check scripts named on the command line (make test's
SCRIPT_CHECKS) and sums their summary lines into one `N passed, N failed`.
A script that ends without a summary line counts as one failure."""

import re
import subprocess
import sys


def main():
    passed = failed = 0
    for script in sys.argv[1:]:
        print(f"--- {script}", flush=True)
        result = subprocess.run([sys.executable, script], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        print(result.stdout, end="", flush=True)
        summaries = re.findall(r"^(\d+) passed, (\d+) failed$", result.stdout, re.M)
        if not summaries:
            failed += 1
            continue
        script_passed, script_failed = (int(n) for n in summaries[-1])
        passed += script_passed
        failed += script_failed + (1 if result.returncode != 0 and script_failed == 0 else 0)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
