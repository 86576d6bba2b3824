"""Runs `chaos --no-log-file validate FILE` for every FILE given, in one
interpreter: the `chaos` command's own entry point (chaostoolkit.cli.cli,
the click group the `chaos` script calls) invoked once per file with the
arguments the shell would pass, so each file goes through the same
loading and `ensure_experiment_is_valid` as the command, without starting
Python and importing the extensions once per file (about a second each).
Prints each rejected file with the command's output and `valid N`; exits 1
when any file is rejected, 3 when chaostoolkit is missing."""

import sys

try:
    from chaostoolkit.cli import cli
    from click.testing import CliRunner
except ImportError:
    print("chaostoolkit is not installed")
    sys.exit(3)

runner = CliRunner()
rejected = 0
for path in sys.argv[1:]:
    result = runner.invoke(cli, ["--no-log-file", "validate", path])
    if result.exit_code != 0:
        rejected += 1
        print(f"{path}: `chaos validate` exits {result.exit_code}")
        print(result.output)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            print(repr(result.exception))
print(f"valid {len(sys.argv) - 1 - rejected}")
sys.exit(1 if rejected else 0)
