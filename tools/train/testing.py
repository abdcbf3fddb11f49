"""A minimal runner for the plain-assert test files here (no pytest on the machines): runs every
test_* function of a module and closes with the line "N passed, N failed" that ./run test reads."""
import sys
import traceback


def run_tests(namespace):
    passed = failed = 0
    for name, test in list(namespace.items()):
        if name.startswith("test_") and callable(test):
            try:
                test()
                passed += 1
            except Exception:
                failed += 1
                print(f"FAILED {name}")
                traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
