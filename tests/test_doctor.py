"""`qkv-lens doctor` checks the system pieces with the programs on PATH, and a
render on a machine without LaTeX stops with one line pointing there.

Each test runs the real command in a child process whose PATH holds only
stand-in programs, so what is "installed" is exactly what the test made."""
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT, one_error_line

TOOLS = ("latex", "kpsewhich", "dvisvgm", "espeak-ng", "chromium")


def bin_with(tmp_path: Path, *names: str, standalone: bool = True) -> Path:
    """A folder of stand-in programs; kpsewhich finds standalone.cls or not."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    for name in names:
        tool = folder / name
        found = "/usr/share/texlive/standalone.cls" if standalone else ""
        tool.write_text(f"#!/bin/sh\necho {found}\n" if name == "kpsewhich" else "#!/bin/sh\nexit 0\n")
        tool.chmod(0o755)
    return folder


def qkv(*args: str, path: Path, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PATH=str(path), PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "qkv_lens", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_doctor_is_ready_when_every_piece_is_there(tmp_path):
    p = qkv("doctor", path=bin_with(tmp_path, *TOOLS), cwd=tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert not [line for line in p.stdout.splitlines()        # fonts come from fontconfig, not PATH
                if line.startswith("MISSING") and "fonts" not in line]
    for name in ("LaTeX (latex)", "standalone", "dvisvgm", "espeak-ng", "Chromium"):
        assert any(line.startswith("ok") and name in line for line in p.stdout.splitlines()), (name, p.stdout)


def test_doctor_names_each_missing_piece_with_its_install_line(tmp_path):
    p = qkv("doctor", path=bin_with(tmp_path, "latex", "kpsewhich", "chromium", standalone=False),
            cwd=tmp_path)
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    for name, package in (("standalone", "texlive-latex-extra"), ("dvisvgm", "dvisvgm"),
                          ("espeak-ng", "espeak-ng")):
        at = next(i for i, line in enumerate(lines) if line.startswith("MISSING") and name in line)
        assert lines[at + 1].strip() == f"install: sudo apt-get install --no-install-recommends {package}"
    assert any(line.startswith("ok") and "LaTeX (latex)" in line for line in lines)
    assert "every render needs" in lines[-1]


def test_only_optional_pieces_missing_is_still_ready(tmp_path):
    p = qkv("doctor", path=bin_with(tmp_path, "latex", "kpsewhich", "dvisvgm"), cwd=tmp_path)
    assert p.returncode == 0
    assert any(line.startswith("MISSING") and "optional" in line and "espeak-ng" in line
               for line in p.stdout.splitlines())
    assert p.stdout.splitlines()[-1].startswith("ready to render")


def test_a_render_without_latex_stops_in_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "renders"
    p = qkv("render", "WorkedExample", "--lang", "en", "--out", str(out),
            path=bin_with(tmp_path, "dvisvgm", "kpsewhich"), cwd=tmp_path)
    assert p.returncode == 2
    line = one_error_line(p.stderr)
    assert "LaTeX (latex) is missing" in line and "texlive-latex-base" in line and "qkv-lens doctor" in line
    assert "Traceback" not in p.stderr and not out.exists()


def test_preview_and_script_check_the_tools_too(tmp_path):
    path = bin_with(tmp_path, "latex", "kpsewhich")          # no dvisvgm
    for args in (("preview", "WorkedExample", "--out", str(tmp_path / "r")), ("script", "WorkedExample")):
        p = qkv(*args, "--lang", "en", path=path, cwd=tmp_path)
        assert p.returncode == 2, args
        assert "dvisvgm is missing" in one_error_line(p.stderr)
