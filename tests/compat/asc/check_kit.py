"""Runs `tessera ascendc-check KIT --json` on the test kit and checks its report."""
import json
import subprocess
import sys

tessera, kit, work = sys.argv[1:4]
proc = subprocess.run([tessera, "ascendc-check", kit, "--json", "--work", work],
                      capture_output=True, text=True, timeout=580)
report = json.loads(proc.stdout)
samples = {s["sample"]: s for s in report["samples"]}
ok = True


def expect(cond, what):
    global ok
    if not cond:
        print("FAILED:", what)
        ok = False


expect(proc.returncode == 1, f"exit code 1 when a sample fails, got {proc.returncode}")
expect(report["total"] == 3 and report["built"] == 2 and report["passed"] == 2,
       f"totals: {report['total']} samples, {report['built']} built, {report['passed']} passed")
cores = report.get("cores", {})
expect(cores.get("vector") == {"total": 3, "built": 2, "passed": 2, "inferred": 0}
       and cores.get("cube") == {"total": 0, "built": 0, "passed": 0, "inferred": 0}
       and cores.get("mix") == {"total": 0, "built": 0, "passed": 0, "inferred": 0}
       and cores.get("all") == {"total": 3, "built": 2, "passed": 2, "inferred": 0},
       f"per-class totals (every test-kit sample is a __vector__ kernel): {cores}")
expect(all(s.get("cores") == "vector" and s.get("cores_rule") == "stated"
           for s in report["samples"]),
       "each sample's class is vector, stated by its kernels")
good = samples.get("vector_scale", {})
expect(good.get("passed") is True, f"vector_scale passes: {good}")
split = samples.get("split_host", {})
expect(split.get("passed") is True, f"split_host (plain C++ host, acl, vendor tiling class) passes: {split}")
bad = samples.get("broken_kernel", {})
expect(bad.get("built") is False and bad.get("phase") == "build", f"broken_kernel not built: {bad}")
expect("NoSuchInstruction" in bad.get("first_error", ""), f"first error names the name: {bad}")
expect("broken_kernel.asc:5" in bad.get("first_error", ""), f"first error at the .asc line: {bad}")
if not ok:
    print(proc.stdout, proc.stderr)
sys.exit(0 if ok else 1)
