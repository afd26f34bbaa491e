"""Font choice: Noto Sans CJK for Chinese (and, for one look, English too)."""
from __future__ import annotations

from functools import cache

CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei")
INSTALL_HINT = "sudo apt-get install --no-install-recommends fonts-noto-cjk"


class FontMissing(RuntimeError):
    """No font that can draw Chinese is installed."""


@cache
def _installed() -> frozenset[str]:
    import manimpango
    return frozenset(manimpango.list_fonts())


def font_for(lang: str) -> str:
    """The font family for ``lang``; raises FontMissing (with the install
    command) when Chinese is asked for and no CJK font is installed."""
    for name in CJK_FONTS:
        if name in _installed():
            return name
    if lang == "zh":
        raise FontMissing(
            "no CJK font is installed, so Chinese text would render as empty boxes; "
            f"install one with: {INSTALL_HINT}"
        )
    return "DejaVu Sans"


def font_file(family: str, bold: bool = False) -> tuple[str, int]:
    """(file, face index) of ``family`` as fontconfig matches it (``fc-match``;
    ``("", 0)`` without fontconfig)."""
    import shutil
    import subprocess

    fc = shutil.which("fc-match")
    if fc is None:
        return "", 0
    try:
        found = subprocess.run([fc, "-f", "%{file}|%{index}", f"{family}:bold" if bold else family],
                               capture_output=True, text=True, timeout=10, check=True).stdout
        file, _, index = found.partition("|")
        return file, int(index or 0)
    except (OSError, ValueError, subprocess.SubprocessError):
        return "", 0
