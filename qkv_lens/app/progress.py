"""Progress of a render run: scenes done, running, cached and failed (rich);
and ``say``, the one place a line for the user is printed."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from qkv_lens.store import escaped


def lines(text: str) -> str:
    """``text`` with each of its lines escaped (``store.escaped``): what it
    says, never what a terminal would act on."""
    return "\n".join(escaped(line) for line in text.split("\n"))


def say(message: str, error: bool = False) -> None:
    """Print ``qkv-lens: <message>`` (on stderr when ``error``), each line
    escaped: every message of the command goes through here."""
    print(f"qkv-lens: {lines(message)}", file=sys.stderr if error else sys.stdout, flush=True)


class Display:
    """A rich progress bar on stderr, or plain lines when stderr is not a
    terminal (CI, logs) or ``quiet``."""

    def __init__(self, total: int, cached: int, quiet: bool = False):
        self.console = Console(stderr=True)
        self.quiet = quiet
        self.total, self.cached = total, cached
        self.running: list[str] = []
        self.ok = self.failed = 0
        self.live = self.console.is_terminal and not quiet
        self.progress = Progress(TextColumn("[bold]render"), BarColumn(), TextColumn("{task.description}"),
                                 TimeElapsedColumn(), console=self.console, transient=False)
        self.task = None

    def _describe(self) -> str:
        now = ", ".join(self.running) or "-"
        return (f"{self.ok + self.cached + self.failed}/{self.total} done "
                f"({self.cached} cached, {self.failed} failed); running: {now}")

    def __enter__(self):
        if self.live:
            self.progress.start()
            self.task = self.progress.add_task(self._describe(), total=self.total,
                                               completed=self.cached)
        return self

    def __exit__(self, *exc):
        if self.live:
            self.progress.stop()

    def _update(self):
        if self.live:
            self.progress.update(self.task, description=self._describe(),
                                 completed=self.ok + self.cached + self.failed)

    def started(self, job) -> None:
        self.running.append(f"{job.scene.name}/{job.lang}")
        self._update()
        if not self.live and not self.quiet:
            print(lines(f"  start {job.scene.name} ({job.lang})"), file=sys.stderr, flush=True)

    def done(self, result) -> None:
        name = f"{result.job.scene.name}/{result.job.lang}"
        if name in self.running:
            self.running.remove(name)
        if result.ok:
            self.ok += 1
        else:
            self.failed += 1
        self._update()
        if not self.live and not self.quiet:
            state = "done" if result.ok else "FAILED"
            pieces = f" in {result.pieces} pieces at once" if getattr(result, "pieces", 1) > 1 else ""
            print(lines(f"  {state} {name} in {result.seconds:.1f}s{pieces} [{self._describe()}]"),
                  file=sys.stderr, flush=True)

    def say(self, message: str, error: bool = False) -> None:
        say(message, error)
