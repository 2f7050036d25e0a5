"""mssanitizer on tessera: runs an Ascend C program under tessera's checked mode, the way the
vendor's sanitizer is invoked (`mssanitizer [--tool=NAME] [--option=yes ...] ./app [args]`).

Checked mode (TESSERA_CHECK=1) is what the vendor's tools check, on every launch of the run:
memcheck (guard pages and canaries around device memory, bounds and alignment of every tensor
access), racecheck (GM races between blocks with no SyncAll or cross-core flag between them),
initcheck (UB bytes never written that reach GM) and synccheck (queue and pipe-flag misuse) - all
at once whatever --tool names. --leak-check, --check-unused-memory and the other options are
accepted and select nothing. Each finding fails its block (the program's synchronize returns the
error) and is listed after the program exits; the exit code is the program's, or 1 when the
program exited 0 but a finding was made.
"""

import json
import os
import subprocess
import sys
import tempfile


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 1
    args = list(argv)
    while args and args[0].startswith("-"):
        args.pop(0)
    if not args:
        print("mssanitizer: error: no program to run", file=sys.stderr)
        return 1
    program, rest = args[0], args[1:]
    rest = [a for a in rest if not (a.startswith("--tool=") or a.startswith("--leak-check")
                                    or a.startswith("--check-unused-memory"))]
    with tempfile.TemporaryDirectory(prefix="mssanitizer-") as tmp:
        report = os.path.join(tmp, "findings.json")
        env = dict(os.environ, TESSERA_CHECK="1", TESSERA_CHECK_REPORT=report)
        try:
            rc = subprocess.call([program, *rest], env=env)
        except OSError as e:
            print(f"mssanitizer: error: cannot run {program}: {e}", file=sys.stderr)
            return 1
        findings = []
        if os.path.exists(report):
            with open(report, encoding="utf-8") as f:
                findings = json.load(f).get("findings", [])
    for finding in findings:
        print(f"====== ERROR: kernel '{finding.get('kernel', '')}' block {finding.get('block', 0)} "
              f"({finding.get('core_type', '')}): {finding.get('api', '')}: "
              f"{finding.get('message', '')}", file=sys.stderr)
    print(f"====== {len(findings)} finding(s) in checked mode", file=sys.stderr)
    return rc if rc != 0 or not findings else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
