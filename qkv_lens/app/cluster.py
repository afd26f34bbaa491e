"""Render jobs on a Dask distributed cluster (``qkv-lens render --dask ADDRESS``).

The client (the ``qkv-lens`` command) has already validated the lesson,
computed the cache keys and dropped the cached jobs.  Each remaining job
travels as a ``Task``: the job, the options, the lesson file's bytes and the
bytes of every file the scene reads beside it (a picture, the recordings,
the teacher's ``texts.toml`` and scene modules, ``my_scenes/*.py``),
and the client's ``fingerprint`` (qkv-lens and manim versions, digests of
the scene code and the text table).  No shared filesystem is assumed.

A worker (``render_task``) refuses a task when its qkv-lens or manim version
differs or when it does not reproduce the job's cache key from the shipped
lesson (``Refused``: the message names the worker and what differs; the
client also compares every worker's whole fingerprint once, on connecting);
otherwise it renders in its own ``qkv-media-<pid>-*`` folder with
``render.render_staged`` and returns the result and the files' bytes.  The
client writes them into ``--out`` with ``render.install``, the same code a
local render uses, so nothing half-written lands there.

A worker that dies mid-job: the scheduler runs the job again on another
worker (Dask's ``allowed_failures``); a task that raises is retried
``RETRIES`` times.  Ctrl-C on the client cancels the futures.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from importlib.metadata import version
from pathlib import Path
from typing import Any

from qkv_lens import voice as voice_mod
from qkv_lens.app import manifest, segments
from qkv_lens.app.cache import _tree_digest, cache_key, code_digests, manim_version
from qkv_lens.app.render import (
    Children,
    Job,
    Options,
    Result,
    clean_stale_media,
    install,
    media_folder,
    out_folder,
    render_job,
    render_staged,
)
from qkv_lens.lesson import Lesson, load_lesson, named_files
from qkv_lens.lesson.declared import is_checkout, teacher_folder
from qkv_lens.registry import by_class, scenes_dir
from qkv_lens.store import folder_inside, read_regular, relative_name, shown
from qkv_lens.texts import LESSON_TEXTS, use_lesson_texts
from qkv_lens.voice import voice_key

CONNECT_TIMEOUT = 5.0      # seconds to reach the scheduler
WORKERS_TIMEOUT = 10.0     # seconds to wait for a first worker
RETRIES = 2                # Dask retries of a task that raised (a death is the scheduler's own retry)
INSTALL_HINT = "pip install qkv-lens[cluster]"
MAX_SHIPPED = 256 << 20    # bytes of one file sent with a task (a picture is capped at 50 MiB, a recording less)


class ClusterError(Exception):
    """The cluster cannot be used (one line); ``status`` is the exit status."""

    def __init__(self, message: str, status: int = 1):
        super().__init__(message)
        self.status = status


class Refused(RuntimeError):
    """A worker refuses a task: its qkv-lens differs from the client's."""


@dataclass(frozen=True)
class Task:
    """One job with everything a worker needs to render it."""
    name: str                     # its Dask key
    job: Job
    opts: Options
    lesson_name: str              # the lesson file's name
    lesson: bytes                 # its bytes
    files: dict[str, bytes]       # the files it reads, by path relative to the lesson's folder
    expected: dict[str, str]      # the client's fingerprint
    segment: tuple[float, float] | None = None   # a piece of the scene (qkv_lens.app.segments), or whole
    last: bool = True             # the scene's last piece (it also mixes the voice)
    cost: float = 0.0             # expected render seconds (segments.expected_costs): longest runs first


def fingerprint() -> dict[str, str]:
    """What must agree between client and worker: the qkv-lens and manim
    versions and digests of the scene modules, ``qkv_math``, the scene side
    of ``qkv_lens`` and the text table."""
    texts = resources.files("qkv_lens").joinpath("texts.toml").read_bytes()
    return {"qkv-lens": version("qkv-lens"), "manim": manim_version(), **code_digests(),
            "scenes": _tree_digest(scenes_dir()), "texts": hashlib.sha256(texts).hexdigest()}


VERSIONS = ("qkv-lens", "manim")


def mismatch(expected: dict[str, str], found: dict[str, str], where: str, versions_only: bool = False) -> str:
    """One line saying how ``found`` (at ``where``) differs from the client's
    ``expected`` (only the versions with ``versions_only``); empty when they agree."""
    versions = [f"{name} {found.get(name)} (client: {expected.get(name)})"
                for name in VERSIONS if found.get(name) != expected.get(name)]
    code = [] if versions_only else sorted(
        name for name in expected.keys() | found.keys()
        if name not in VERSIONS and found.get(name) != expected.get(name))
    if not versions and not code:
        return ""
    parts = versions + ([f"different {', '.join(code)}"] if code else [])
    return (f"{where} refuses to render: it has {'; '.join(parts)}; "
            f"install the client's qkv-lens on every worker")


def _worker_address() -> str:
    try:
        from distributed import get_worker
        return f"worker {get_worker().address}"
    except (ImportError, ValueError):
        return f"worker pid {os.getpid()}"


def shipped_files(lesson: Lesson, job: Job, voice: str) -> dict[str, bytes]:
    """The files the job reads in the lesson's folder, by relative path:
    those its lesson section names (a picture, kept inside the folder by the
    loader) and, with ``voice == "recorded"``, the scene's recordings in the
    job's language (each a checked recording inside the folder)."""
    folder = lesson.path.parent
    paths = named_files(folder, lesson.sections, job.scene.lesson_section)
    paths.update(teacher_files(folder))
    if voice == "recorded":
        paths.update(voice_mod.recordings(folder, job.lang, job.scene.name))
    return {name: read_regular(path, MAX_SHIPPED) for name, path in paths.items()}


def teacher_files(folder: Path) -> dict[str, Path]:
    """The teacher's files beside the lesson in ``folder`` that a render
    reads: ``texts.toml`` and every module of the teacher's scene folder
    (a scene may be listed by the lesson without being rendered now, but
    the lesson names it), by relative path."""
    found = {LESSON_TEXTS: folder / LESSON_TEXTS} if (folder / LESSON_TEXTS).is_file() else {}
    scenes = teacher_folder(folder)
    if scenes.is_dir() and not is_checkout(scenes):
        found.update({f"{scenes.name}/{p.name}": p for p in sorted(scenes.glob("*.py")) if p.is_file()})
    return found


def make_tasks(jobs: list[Job], opts: Options) -> list[Task]:
    """A Task for every job (the client's side; reads the files it ships)."""
    expected = fingerprint()
    data = opts.lesson_path.read_bytes()
    lesson = load_lesson(opts.lesson_path)
    return [Task(f"qkv-{job.scene.name}-{job.lang}-{uuid.uuid4().hex[:8]}", job, opts, opts.lesson_path.name,
                 data, shipped_files(lesson, job, opts.voice), expected) for job in jobs]


def _key_of(task: Task, lesson_path: Path) -> str:
    """The cache key of ``task``'s job as this machine computes it."""
    job, opts = task.job, task.opts
    lesson = load_lesson(lesson_path, job.lang)
    use_lesson_texts(lesson_path.parent)
    return cache_key(job.scene, lesson, job.lang, opts.quality, opts.fmt, opts.transparent,
                     voice=voice_key(opts.voice, lesson_path.parent, job.lang, job.scene.name))


def render_task(task: Task) -> tuple[Result, dict[str, bytes]]:
    """Run on a worker: check the fingerprint and the cache key, render in a
    temporary folder, return the result and the output files' bytes by name."""
    where = _worker_address()
    found = fingerprint()
    refusal = mismatch(task.expected, found, where, versions_only=True)
    if refusal:
        raise Refused(refusal)
    clean_stale_media()    # folders of a worker killed earlier on this machine
    with media_folder() as tmp:
        lesson_dir = tmp / "lesson"
        lesson_dir.mkdir()
        for name, data in task.files.items():    # each a plain relative path: nothing lands outside
            parent, base = os.path.split(relative_name(name))
            (folder_inside(lesson_dir, parent) if parent else lesson_dir).joinpath(base).write_bytes(data)
        if "/" in relative_name(task.lesson_name, "lesson file"):
            raise Refused(f"lesson file {shown(task.lesson_name)}: expected a plain file name")
        lesson_path = lesson_dir / task.lesson_name
        lesson_path.write_bytes(task.lesson)
        if task.job.scene.teacher:     # the teacher's module as shipped with the task, not the client's path
            task = dataclasses.replace(task, job=dataclasses.replace(
                task.job, scene=by_class(task.job.scene.name, lesson_dir)))
        key = _key_of(task, lesson_path)
        if key != task.job.key:   # its code differs (named when the fingerprint shows where)
            raise Refused(mismatch(task.expected, found, where) or
                          f"{where} refuses to render {task.job.scene.name} ({task.job.lang}): it computes "
                          f"the cache key {key}, the client {task.job.key}; install the client's qkv-lens "
                          f"on every worker")
        media = tmp / "media"
        media.mkdir()
        opts = dataclasses.replace(task.opts, lesson_path=lesson_path, out=tmp / "out")
        children = Children()
        with _LOCK:
            _RUNNING[task.name] = children
            if task.name in _CANCELLED:
                children.stop_all(grace=0)   # cancelled before it started: manim does not start
        try:
            if task.segment is not None:
                piece = segments.render_piece(task.job, opts, segments.Piece(*task.segment, media), task.last,
                                              children)
                assert piece.result is not None
                files = segments.piece_files(piece, task.job.scene.name) if piece.result.ok else {}
                return piece.result, files
            result, staged = render_staged(task.job, opts, media, children)
            return result, {name: path.read_bytes() for name, path in staged.items()}
        finally:
            with _LOCK:
                _RUNNING.pop(task.name, None)


# The manim processes of the tasks running in this worker process, by task
# name, and the names the client cancelled (``stop_renders``).
_LOCK = threading.Lock()
_RUNNING: dict[str, Children] = {}
_CANCELLED: set[str] = set()


def stop_renders(names: list[str]) -> int:
    """Run on each worker by a client that cancels: stop the manim process
    of each task named (and never start one for it); how many it stopped."""
    with _LOCK:
        _CANCELLED.update(names)
        found = [_RUNNING[n] for n in names if n in _RUNNING]
    for children in found:
        children.stop_all(grace=2.0)
    return len(found)


SCHEMES = ("tcp", "tls", "ucx", "ws", "wss", "inproc")    # the address schemes of distributed
_HOST = re.compile(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?")
_ADDRESS = re.compile(rf"([a-z]+)://({_HOST.pattern})(?::(\d{{1,5}}))?(/[A-Za-z0-9/._-]*)?")


def check_address(address: str) -> str:
    """``address`` when it is a scheduler address ``scheme://HOST[:PORT]``
    (a scheme of SCHEMES, a host name, IPv4 or [IPv6] address, a port up
    to 65535; inproc's path after it); ClusterError (one line, exit
    status 2) at once otherwise, before anything connects."""
    m = _ADDRESS.fullmatch(address)
    if m is None:
        raise ClusterError(f"--dask {shown(address)}: expected a scheduler address like tcp://HOST:8786 "
                           f"(scheme://HOST[:PORT], a scheme of {', '.join(SCHEMES)})", 2)
    scheme, _, port, path = m.groups()
    if scheme not in SCHEMES:
        raise ClusterError(f"--dask {shown(address)}: unknown address scheme {scheme!r}; expected one of "
                           f"{', '.join(SCHEMES)}", 2)
    if port is not None and not 0 < int(port) < 65536:
        raise ClusterError(f"--dask {shown(address)}: port {port} is not a port (1 to 65535)", 2)
    if path and scheme != "inproc":
        raise ClusterError(f"--dask {shown(address)}: expected scheme://HOST[:PORT], with nothing after it", 2)
    return address


def connect(address: str) -> Any:
    """A ``distributed.Client`` on ``address`` with at least one worker whose
    fingerprint matches this machine's; ClusterError (one line) otherwise."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(f"--dask needs the distributed package: {INSTALL_HINT}", 2) from None
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except ValueError as err:
        raise ClusterError(f"--dask {shown(address)}: {err}", 2) from None
    except (OSError, TimeoutError):
        raise ClusterError(f"cannot reach the Dask scheduler at {address} within {CONNECT_TIMEOUT:g} s "
                           f"(is `dask scheduler` running there?)") from None
    try:
        try:
            client.wait_for_workers(1, timeout=WORKERS_TIMEOUT)
        except TimeoutError:
            raise ClusterError(f"the Dask scheduler at {address} has no workers after "
                               f"{WORKERS_TIMEOUT:g} s; start `dask worker {address}` on each render "
                               f"machine") from None
        check_workers(client)
    except BaseException:
        client.close()
        raise
    return client


def check_workers(client: Any) -> None:
    """ClusterError naming the first worker whose fingerprint differs from
    this machine's (or that cannot run qkv-lens at all)."""
    try:
        found = client.run(fingerprint)
    except Exception as err:  # noqa: BLE001 - a worker without qkv-lens cannot unpickle the call
        raise ClusterError(f"a worker cannot run qkv-lens ({type(err).__name__}: {err}); "
                           f"install the client's qkv-lens on every worker") from None
    expected = fingerprint()
    for address, fp in sorted(found.items()):
        refusal = mismatch(expected, fp, f"worker {address}")
        if refusal:
            raise ClusterError(refusal)


def _failure(job: Job, err: BaseException) -> Result:
    text = str(err) or type(err).__name__
    if type(err).__name__ == "KilledWorker":
        text = f"the workers running it died too often ({text})"
    return Result(job, False, 0.0, error=text)


def priorities(tasks: list[Task]) -> list[int]:
    """Dask priorities (higher runs first): the longest task first, by its
    expected ``cost`` (a piece's share of its job's), in task order when
    equal; so the longest job does not start last."""
    ranked = sorted(range(len(tasks)), key=lambda i: (-tasks[i].cost, i))
    out = [0] * len(tasks)
    for rank, i in enumerate(ranked):
        out[i] = len(tasks) - rank
    return out


def run_tasks(client: Any, tasks: list[Task],
              on_start: Callable[[Job], None] = lambda job: None,
              on_done: Callable[[Result], None] = lambda result: None) -> list[Result]:
    """Submit every task, land each result in ``--out`` as it finishes
    (``render.install``), call ``on_done`` for it; results in task order.
    A failing job never stops the others; any interrupt cancels the rest."""
    from distributed import as_completed

    order = priorities(tasks)
    futures = {}
    jobs: dict[str, int] = {}                  # a job's first task's name -> its place in the results
    pieces: dict[int, dict[int, tuple]] = {}   # a split job's pieces as they land: piece -> (result, files)
    for i, task in enumerate(tasks):
        j = jobs.setdefault(task.job.key + task.job.lang + task.job.scene.name, len(jobs))
        if task.segment is None or task.segment[0] == 0:
            on_start(task.job)
        futures[client.submit(render_task, task, key=task.name, retries=RETRIES, priority=order[i])] = (i, j)
    results: dict[int, Result] = {}
    try:
        for fut in as_completed(list(futures), loop=client.loop):
            i, j = futures[fut]
            job = tasks[i].job
            try:
                result, files = fut.result()
                fut.release()
                start = time.monotonic()
                if tasks[i].segment is not None:
                    pieces.setdefault(j, {})[i] = (result, files)
                    group = [k for k, job_of in futures.values() if job_of == j]
                    if len(pieces[j]) < len(group):
                        continue
                    result = join_pieces([tasks[k] for k in group], [pieces[j][k] for k in group])
                elif result.ok:
                    result = install(result, files, tasks[i].opts.out, out_folder(tasks[i].opts, job.lang))
                    result.seconds += time.monotonic() - start
            except Exception as err:  # noqa: BLE001 - reported as this job's failure
                result = _failure(job, err)
            fut.release()
            results[j] = result
            on_done(result)
    except BaseException:
        client.cancel(list(futures))
        try:   # a running task does not stop when cancelled: stop its manim process
            client.run(stop_renders, [t.name for t in tasks])
        except Exception:  # noqa: BLE001 - best effort while interrupted
            pass
        raise
    return [results[j] for j in range(len(jobs))]


def split_tasks(tasks: list[Task], counts: list[int]) -> list[Task]:
    """Each task cut into its count of pieces (``segments.pieces_for``),
    planned on the client, each piece with its share of the task's cost;
    a task whose plan fails, and a count of 1, stay whole."""
    out = []
    for task, count in zip(tasks, counts):
        if count == 1:
            out.append(task)
            continue
        with media_folder() as media:
            try:
                starts = segments.planned(task.job, task.opts, media, count)
            except (RuntimeError, ValueError):
                out.append(task)
                continue
        for k, (a, b) in enumerate(zip(starts, [*starts[1:], float("inf")])):
            out.append(dataclasses.replace(task, name=f"{task.name}-piece{k}", segment=(a, b),
                                           last=k == len(starts) - 1, cost=task.cost / len(starts)))
    return out


def join_pieces(tasks: list[Task], landed: list[tuple[Result, dict[str, bytes]]]) -> Result:
    """A split job's pieces (as the workers sent them) joined on the client
    and installed; rendered whole here when they cannot be joined exactly."""
    began = time.monotonic()
    job, opts = tasks[0].job, tasks[0].opts
    for result, _ in landed:
        if not result.ok:
            return result
    with media_folder() as media:
        parts = [segments.piece_from_files(segments.Piece(*t.segment, media / f"piece-{k}", result=r), files)
                 for k, (t, (r, files)) in enumerate(zip(tasks, landed)) if t.segment is not None]
        result, staged, why = segments.join(job, opts, media, parts, began)
        if why is not None:
            whole = render_job(job, opts)
            return dataclasses.replace(whole, warnings=[*whole.warnings, f"{job.scene.name} ({job.lang}): "
                                                        f"rendered whole on this machine, not split: {why}"])
        result = dataclasses.replace(result, pieces=len(parts),
                                     seconds=max(r.seconds for r, _ in landed) + time.monotonic() - began)
        return install(result, staged, opts.out, out_folder(opts, job.lang)) if result.ok else result


@contextmanager
def session(address: str, jobs: list[Job], opts: Options,
            split: bool = True) -> Iterator[Callable[..., list[Result]]]:
    """Build the tasks, connect, check the workers, cut the jobs that would
    hold up the rest into pieces (``segments.pieces_for`` over the workers'
    threads; none unless ``split``); yield ``run(on_start, on_done) ->
    results``; close the client on exit.  ClusterError first when the files
    cannot be shipped or the cluster cannot be used."""
    costs = segments.expected_costs(jobs, opts, manifest.load(opts.out))
    tasks = [dataclasses.replace(t, cost=c) for t, c in zip(make_tasks(jobs, opts), costs)]
    client = connect(address)
    try:
        slots = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        tasks = split_tasks(tasks, segments.counts(jobs, costs, slots, opts, split))
    except BaseException:
        client.close()
        raise

    def run(on_start: Callable[[Job], None] = lambda job: None,
            on_done: Callable[[Result], None] = lambda result: None) -> list[Result]:
        return run_tasks(client, tasks, on_start, on_done)

    try:
        yield run
    finally:
        client.close()


@contextmanager
def loopback_cluster(folder: Path, workers: int = 2, cwd: Path | None = None,
                     env: dict[str, str] | None = None) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded worker processes (each
    with its nanny) on 127.0.0.1: ``dask scheduler`` and ``dask worker``, as
    on a real cluster, run from ``cwd`` with ``env``.  Yields the scheduler's
    address once every worker has connected; stops them all on exit.
    ``folder`` holds the scheduler file.  For the tests, `make bench`, and
    trying ``--dask`` on one machine."""
    from distributed import Client
    dask = Path(sys.executable).parent / "dask"
    info = folder / "scheduler.json"
    quiet: dict[str, Any] = dict(cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    procs = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                               "--scheduler-file", info], **quiet)]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        procs.append(subprocess.Popen([dask, "worker", "--scheduler-file", info, "--nworkers", str(workers),
                                       "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard",
                                       "--memory-limit", "0"], **quiet))
        address = json.loads(info.read_text())["address"]
        with Client(address, set_as_default=False, timeout=30) as client:
            client.wait_for_workers(workers, timeout=60)
        yield address
    finally:
        for proc in reversed(procs):
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
