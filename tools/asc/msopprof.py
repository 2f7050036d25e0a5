"""msopprof on tessera: profiles an Ascend C program the way the vendor's operator profiler is
invoked (`msopprof [simulator] [--option=value ...] ./app [args]`).

The program runs with TESSERA_TRACE set, so tessera records a Chrome-trace timeline of every
launch (blocks on logical-core lanes); the per-kernel table of `tessera trace summary` (calls,
time, block balance, GB/s) is printed after the program exits. Output goes to --output=DIR
(default: ./OPPROF_<time>); `simulator` runs the same way (tessera's emulated NPU profile is the
simulator). Hardware-counter options (--aic-metrics=..., --soc-version=..., ...) are accepted and
select nothing: a CPU has no AI-core counters. The exit code is the program's.
"""

import os
import subprocess
import sys
import time


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 1
    args = list(argv)
    if args[0] == "simulator":
        args = args[1:]
    output = None
    while args and args[0].startswith("--"):
        option = args.pop(0)
        if option.startswith("--output="):
            output = option.split("=", 1)[1]
    if not args:
        print("msopprof: error: no program to profile", file=sys.stderr)
        return 1
    output = output or "OPPROF_" + time.strftime("%Y%m%d%H%M%S")
    os.makedirs(output, exist_ok=True)
    trace = os.path.join(output, "trace.json")
    env = dict(os.environ, TESSERA_TRACE=trace)
    try:
        rc = subprocess.call(args, env=env)
    except OSError as e:
        print(f"msopprof: error: cannot run {args[0]}: {e}", file=sys.stderr)
        return 1
    tessera = os.environ.get("TESSERA_CLI") or TESSERA_CLI
    if os.path.exists(trace):
        summary = subprocess.run([tessera, "trace", "summary", trace], capture_output=True, text=True)
        sys.stdout.write(summary.stdout)
        sys.stderr.write(summary.stderr)
        with open(os.path.join(output, "summary.txt"), "w", encoding="utf-8") as f:
            f.write(summary.stdout)
        print(f"msopprof: timeline {trace} (chrome://tracing, or tessera trace svg)")
    else:
        print(f"msopprof: the program wrote no timeline to {trace}", file=sys.stderr)
    return rc


TESSERA_CLI = "tessera"

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
