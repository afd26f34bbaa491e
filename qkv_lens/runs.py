"""The lesson's training runs, trained once per parameter set and kept in a file.

``training_runs(params)`` returns ``{"standard": Run, "swapped": Run}`` for
the lesson's ``[training]`` section.  Each run is stored in the cache
directory (``QKV_CACHE_DIR``, else ``$XDG_CACHE_HOME/qkv-lens``, else
``~/.cache/qkv-lens``) under a name hashed from its arguments and the source
of ``qkv_math/training.py``, so editing either trains afresh; an unreadable
file is trained over.
"""
from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path
from typing import Any

import qkv_math
from qkv_lens.store import cache_dir, write_atomic
from qkv_math import training

TRAINING_SOURCE = Path(training.__file__)


def run_file(formula: str, args: dict) -> Path:
    """Where the run of ``formula`` with ``args`` is kept."""
    key = json.dumps({"formula": formula, **args}, sort_keys=True).encode()
    digest = hashlib.sha256(key + TRAINING_SOURCE.read_bytes()).hexdigest()[:20]
    return cache_dir() / "training" / f"{formula}-{digest}.pickle"


def cached_run(formula: str, args: dict) -> training.Run:
    """The run, read from its file or trained and written (atomically)."""
    path = run_file(formula, args)
    try:
        with path.open("rb") as f:
            run = pickle.load(f)
        if isinstance(run, training.Run) and run.formula == formula:
            return run
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
        pass
    run = qkv_math.train_matching(formula, **args)
    try:
        write_atomic(path, pickle.dumps(run, protocol=pickle.HIGHEST_PROTOCOL), sync=False)
    except OSError:
        pass   # a read-only cache costs time, not correctness
    return run


def run_args(params: Any) -> dict:
    """Keyword arguments of ``qkv_math.train_matching`` (all but the formula)
    from the lesson's ``[training]`` section."""
    return {"seed": params.seed, "steps": params.steps, "n_people": params.people,
            "n_jobs": len(params.jobs), "batch": params.batch,
            "learning_rate": float(params.learning_rate), "heldout": params.heldout,
            "snapshots": params.snapshots}


def training_runs(params: Any) -> dict[str, training.Run]:
    """Both formulas trained from the same start with the lesson's ``[training]``
    section (``jobs``, ``people``, ``seed``, ``steps``, ``learning_rate``,
    ``batch``, ``heldout``, ``snapshots``)."""
    args = run_args(params)
    return {formula: cached_run(formula, args) for formula in training.FORMULAS}
