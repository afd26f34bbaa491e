"""The training cache: one training per parameter set, invalidated by any change."""
import dataclasses

import numpy as np
import pytest

import qkv_math
from qkv_lens import runs
from qkv_lens.lesson import load_lesson
from tests.helpers import LESSON


@pytest.fixture
def small(tmp_path, monkeypatch):
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path))
    calls = []
    real = qkv_math.train_matching

    def counting(formula, **kw):
        calls.append(formula)
        return real(formula, **kw)

    monkeypatch.setattr(qkv_math, "train_matching", counting)
    params = dataclasses.replace(load_lesson(LESSON).params["training"], steps=30)
    return params, calls, tmp_path


def test_trained_once_per_parameter_set(small):
    params, calls, tmp = small
    first = runs.training_runs(params)
    assert sorted(calls) == ["standard", "swapped"]
    again = runs.training_runs(params)
    assert len(calls) == 2, "the second call must read the files, not train"
    for f in first:
        assert np.array_equal(first[f].losses, again[f].losses)
        assert np.array_equal(first[f].snapshots[-1].attention, again[f].snapshots[-1].attention)
    assert len(list((tmp / "training").glob("*.pickle"))) == 2
    assert not list((tmp / "training").glob("*.part"))


def test_changed_parameters_train_again(small):
    params, calls, _ = small
    runs.training_runs(params)
    other = runs.training_runs(dataclasses.replace(params, seed=params.seed + 1))
    assert len(calls) == 4
    assert other["standard"].losses[0] != runs.training_runs(params)["standard"].losses[0]
    assert len(calls) == 4


def test_damaged_file_is_trained_over(small):
    params, calls, _ = small
    runs.training_runs(params)
    path = runs.run_file("standard", runs.run_args(params))
    path.write_bytes(b"not a pickle")
    run = runs.training_runs(params)["standard"]
    assert calls.count("standard") == 2 and len(run.losses) == 30


def test_source_change_moves_the_file(small, tmp_path, monkeypatch):
    params, _, _ = small
    before = runs.run_file("standard", runs.run_args(params))
    edited = tmp_path / "training.py"
    edited.write_bytes(runs.TRAINING_SOURCE.read_bytes() + b"\n# edited\n")
    monkeypatch.setattr(runs, "TRAINING_SOURCE", edited)
    assert runs.run_file("standard", runs.run_args(params)) != before
