"""``qkv-lens lesson``: a missing or damaged file is one line and the previous page stays."""

import pytest

from qkv_lens.app import cli
from tests.helpers import ROOT, one_error_line, run_cli


@pytest.fixture
def rendered(tmp_path, fake):
    """renders/ from the stand-in renderer: real files, manifest and page."""
    assert run_cli(tmp_path) == 0
    out = tmp_path / "out"
    return out, (out / "index.html").read_bytes()


def test_lesson_names_a_missing_subtitle_and_keeps_the_page(rendered, capsys):
    out, page = rendered
    (out / "en" / "480p15" / "WorkedExample.vtt").unlink()
    capsys.readouterr()
    assert cli.main(["lesson", "--out", str(out)]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert "WorkedExample.vtt: missing" in line and "render it again" in line
    assert (out / "index.html").read_bytes() == page


@pytest.mark.parametrize("damage", ["{not json", '{"renders": [{"scene": 1}]}', "[]", "\xff\xfe"])
def test_lesson_refuses_a_damaged_manifest_and_keeps_the_page(rendered, capsys, damage):
    out, page = rendered
    (out / "manifest.json").write_bytes(damage.encode("latin-1"))
    capsys.readouterr()
    assert cli.main(["lesson", "--out", str(out)]) == 1
    assert f"{out / 'manifest.json'}: damaged" in one_error_line(capsys.readouterr().err)
    assert (out / "index.html").read_bytes() == page


def test_lesson_without_a_manifest(tmp_path, capsys):
    assert cli.main(["lesson", "--out", str(tmp_path)]) == 1
    assert "manifest.json: not found" in one_error_line(capsys.readouterr().err)
    assert not (tmp_path / "index.html").exists()


def test_lesson_with_a_damaged_manifest_in_a_real_process(rendered):
    import subprocess
    import sys
    out, page = rendered
    (out / "manifest.json").write_text('{"renders": 3}', encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "qkv_lens", "lesson", "--out", str(out)], cwd=ROOT,
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "manifest.json: damaged" in one_error_line(p.stderr)
    assert (out / "index.html").read_bytes() == page


def test_render_reports_a_page_it_cannot_build(rendered, fake, capsys):
    out, page = rendered
    (out / "en" / "480p15" / "SpaceDeformation.vtt").unlink()
    fake.fail = {"SpaceDeformation"}  # its re-render fails: the old entry names a missing file
    fake.calls.clear()
    capsys.readouterr()
    assert run_cli(out.parent) == 1
    assert fake.calls == ["SpaceDeformation"]
    err = capsys.readouterr().err
    assert "qkv-lens: error: lesson page not rebuilt: " in err and "SpaceDeformation.vtt: missing" in err
    assert (out / "index.html").read_bytes() == page
