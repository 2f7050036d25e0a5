"""msopprof (tools/asc/msopprof.py): runs a tessera program with a timeline and prints the
per-kernel summary; the exit code is the program's. MSOPPROF, PROGRAM (a program that launches
block_sum_custom) come from the environment (set by CTest)."""
import os
import subprocess
import sys

MSOPPROF = os.environ["MSOPPROF"]
PROGRAM = os.environ["PROGRAM"]


def run(args, cwd):
    return subprocess.run([MSOPPROF, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_profiles_a_program_into_its_output_folder(tmp_path):
    out = tmp_path / "prof"
    proc = run(["simulator", "--soc-version=Ascend910B1", f"--output={out}", PROGRAM], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (out / "trace.json").exists()
    summary = (out / "summary.txt").read_text()
    assert "block_sum_custom" in summary and "calls" in summary
    assert "block_sum_custom" in proc.stdout


def test_default_output_folder_and_the_programs_exit_code(tmp_path):
    proc = run([sys.executable, "-c", "import sys; sys.exit(3)"], tmp_path)
    assert proc.returncode == 3
    folders = [p for p in tmp_path.iterdir() if p.name.startswith("OPPROF_")]
    assert len(folders) == 1
    assert "wrote no timeline" in proc.stderr


def test_no_program_is_an_error(tmp_path):
    proc = run(["--output=x"], tmp_path)
    assert proc.returncode == 1 and "no program" in proc.stderr
    proc = run(["./no-such-program"], tmp_path)
    assert proc.returncode == 1 and "cannot run" in proc.stderr
