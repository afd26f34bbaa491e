"""``qkv-lens --help`` and every subcommand's ``--help`` read as plain text:
no reStructuredText or Markdown quoting (backticks) from docstrings."""
import argparse
import re

import pytest

from qkv_lens.app import cli


def subcommands() -> list[str]:
    parser = cli.build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(sub.choices)


def test_every_subcommand_is_checked():
    assert {"init", "new", "render", "lesson", "export", "watch", "doctor"} <= set(subcommands())


@pytest.mark.parametrize("command", [[], *([c] for c in subcommands())], ids=lambda c: " ".join(c) or "qkv-lens")
def test_help_has_no_backticks(command, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main([*command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "usage: qkv-lens" in text
    assert not re.search(r"`[^`\n]*`", text), text
