# SPDX-License-Identifier: MIT
"""PASS and FAIL lines for the tests' Python checkers, and how many of each.
Standard library only; a checker finds it with

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

check() prints its line at once and counts it in passed or failed. later()
keeps it until report(LABEL) prints every PASS, then every FAIL, each as
"PASS LABEL: what": for a checker that knows its label only at the end, or
that may stop half-way on a capture of the wrong shape and still says what
it found until then.
"""

passed = 0
failed = 0
_later_ok, _later_bad = [], []


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what)


def later(cond, what):
    (_later_ok if cond else _later_bad).append(what)


def report(label):
    """The kept lines under LABEL; the exit status: 1 if any failed."""
    for w in _later_ok:
        print("PASS %s: %s" % (label, w))
    for w in _later_bad:
        print("FAIL %s: %s" % (label, w))
    return 1 if _later_bad else 0
