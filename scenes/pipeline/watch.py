"""``qkv-lens watch``: re-render at low quality what changes on disk."""
from __future__ import annotations

import threading
import time
from pathlib import Path

from scenes.kit.lesson import default_lesson_path
from scenes.pipeline.registry import SCENES_DIR

DEBOUNCE = 0.5  # seconds of quiet after a change before rendering
WRITE_EVENTS = {"modified", "created", "moved", "deleted"}


def watch(args, render_lesson, stop: threading.Event | None = None) -> int:
    """Watch scenes/, qkv_math/ and the lesson file; after each burst of
    changes run the (cached) render, which re-renders only what changed,
    and refreshes the lesson page.  Stops on Ctrl-C (or when ``stop`` is set)."""
    from watchdog.events import FileSystemEventHandler
    from watchdog.observers import Observer

    changed = threading.Event()
    lesson = (Path(args.lesson) if args.lesson else default_lesson_path()).resolve()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event):
            # Only edits: reading files (the hash check does) raises opened /
            # closed events on Linux, which must not start another round.
            if event.is_directory or event.event_type not in WRITE_EVENTS:
                return
            path = str(getattr(event, "dest_path", "") or event.src_path)
            if path.endswith((".py", ".toml")) and "__pycache__" not in path:
                changed.set()

    observer = Observer()
    for folder in (SCENES_DIR, SCENES_DIR.parent / "qkv_math", lesson.parent):
        observer.schedule(Handler(), str(folder), recursive=folder != lesson.parent)
    observer.start()
    print(f"qkv-lens: watching {SCENES_DIR}, qkv_math/ and {lesson} (Ctrl-C to stop)", flush=True)
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
            try:
                render_lesson(args)
            except Exception as err:  # noqa: BLE001 - keep watching after a bad edit
                print(f"qkv-lens: error: {err}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        observer.stop()
        observer.join()
    return 0
