"""mssanitizer (tools/asc/mssanitizer.py): runs a program in checked mode, lists its findings, and
exits with the program's code (1 when findings were made and the program exited 0). The fake
programs here stand in for a tessera program: they check the environment checked mode needs and
write a findings report as tessera's checked mode does."""
import os
import subprocess
import sys

MSSANITIZER = os.environ["MSSANITIZER"]

WRITE_FINDING = """
import json, os, sys
assert os.environ["TESSERA_CHECK"] == "1"
with open(os.environ["TESSERA_CHECK_REPORT"], "w") as f:
    json.dump({"findings": [{"api": "DataCopy", "message": "GM read past the end",
                             "kernel": "add_custom", "block": 3, "core_type": "AIV",
                             "checked_mode": True}]}, f)
sys.exit(int(sys.argv[1]))
"""


def run(*args):
    return subprocess.run([MSSANITIZER, *args], capture_output=True, text=True, timeout=60)


def test_clean_run_passes_with_its_exit_code():
    proc = run(sys.executable, "-c", "import os, sys; sys.exit(0 if os.environ['TESSERA_CHECK'] == '1' else 5)",
               "--leak-check=yes")
    assert proc.returncode == 0, proc.stderr
    assert "0 finding(s)" in proc.stderr


def test_findings_are_listed_and_fail_the_run():
    proc = run("--tool=racecheck", sys.executable, "-c", WRITE_FINDING, "0")
    assert proc.returncode == 1
    assert "kernel 'add_custom' block 3 (AIV): DataCopy: GM read past the end" in proc.stderr
    assert "1 finding(s)" in proc.stderr
    proc = run(sys.executable, "-c", WRITE_FINDING, "7", "--tool=initcheck")
    assert proc.returncode == 7


def test_no_program_is_an_error():
    assert run("--tool=memcheck").returncode == 1
    proc = run("./no-such-program")
    assert proc.returncode == 1 and "cannot run" in proc.stderr
