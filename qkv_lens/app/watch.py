"""``qkv-lens watch``: re-render at low quality what changes on disk."""
from __future__ import annotations

import threading
import time
from pathlib import Path

from qkv_lens.app.progress import say
from qkv_lens.lesson import LessonError, default_lesson_path, read_toml
from qkv_lens.lesson import named_files as lesson_files
from qkv_lens.lesson.declared import teacher_folder
from qkv_lens.registry import package_dir, scenes_dir
from qkv_lens.store import escaped, shown

DEBOUNCE = 0.5  # seconds of quiet after a change before rendering
WRITE_EVENTS = {"modified", "created", "moved", "deleted"}
PICTURES = (".png", ".jpg", ".jpeg")  # a lesson's [photo_filter] image
RECORDINGS = (".wav", ".mp3", ".m4a")  # qkv_lens.voice, "recorded"


def named_files(lesson: Path) -> set[Path]:
    """The files the lesson names (``[photo_filter] image``), as real paths
    inside its folder.  An unreadable lesson names nothing (the render
    reports its error)."""
    try:
        raw = read_toml(lesson)      # regular files only, size capped: never hangs
    except LessonError:
        return set()
    return set(lesson_files(lesson.parent, raw).values())


def is_relevant(path: Path, lesson: Path) -> bool:
    """Whether an edit of ``path`` may change a render: code and TOML, a
    file the lesson names, a picture beside the lesson."""
    if "__pycache__" in path.parts:
        return False
    if path.suffix in (".py", ".toml"):
        return True
    if path.parent == lesson.parent and path.suffix.lower() in PICTURES:
        return True
    if path.suffix.lower() in RECORDINGS and (lesson.parent / "voice") in path.parents:
        return True        # the author's recordings: voice/<lang>/<Scene>/<beat>.wav
    return path in named_files(lesson)


def code_dirs_installed() -> tuple[Path, ...]:
    """The code a render depends on: scenes/, qkv_math/, qkv_lens/."""
    return (scenes_dir(), package_dir("qkv_math"), package_dir("qkv_lens"))


def watch(args, render_lesson, stop: threading.Event | None = None,
          code_dirs: tuple[Path, ...] | None = None) -> int:
    """Watch the code (scenes/, qkv_math/, qkv_lens/, the teacher's my_scenes/
    beside the lesson), the lesson file and the files it names; after each
    burst of changes run the (cached) render, which re-renders only what
    changed, and refreshes the lesson page.  Errors go to stderr and
    watching goes on.  Stops when ``stop`` is set (status 0) or on
    Ctrl-C, which propagates (the command exits with 130)."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    changed = threading.Event()
    lesson = (Path(args.lesson) if args.lesson else default_lesson_path()).resolve()

    mine = teacher_folder(lesson.parent)     # the teacher's own scenes; `new` may make the folder later

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event):
            # Only edits: reading files (the hash check does) raises opened /
            # closed events on Linux, which must not start another round.
            if event.event_type not in WRITE_EVENTS:
                return
            path = Path(getattr(event, "dest_path", "") or event.src_path).resolve()
            if event.is_directory:
                if path == mine:        # my_scenes/ made (or moved in): watched from the next round on
                    changed.set()
                return
            if is_relevant(path, lesson):
                changed.set()

    observer = Observer()
    folders = set(code_dirs or code_dirs_installed())

    def watch_mine() -> None:
        if mine not in folders and mine.is_dir():
            folders.add(mine)
            observer.schedule(Handler(), str(mine), recursive=True)

    flat = {lesson.parent} | {f.parent for f in named_files(lesson)}
    voice = lesson.parent / "voice"
    if voice.is_dir():
        folders.add(voice)
    for folder in folders:
        observer.schedule(Handler(), str(folder), recursive=True)
    for folder in flat - folders:
        observer.schedule(Handler(), str(folder), recursive=False)
    observer.start()
    watch_mine()
    say(f"watching {', '.join(map(shown, sorted(folders)))}, {shown(lesson)} and the files it names (Ctrl-C to stop)")
    try:
        changed.set()  # render once at start
        stop = stop or threading.Event()
        while not stop.is_set():
            if not changed.wait(timeout=0.2):
                continue
            time.sleep(DEBOUNCE)
            while changed.is_set():
                changed.clear()
                time.sleep(DEBOUNCE)
            watch_mine()
            try:
                render_lesson(args)
            except Exception as err:  # noqa: BLE001 - keep watching after a bad edit
                say(f"error: {escaped(str(err))}", error=True)
    finally:       # Ctrl-C goes on to the command, which exits with 130 as render does
        observer.stop()
        observer.join()
    return 0
