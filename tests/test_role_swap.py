"""RoleSwap: the sliders are the probes, and the asker follows the position."""
import numpy as np
import pytest

from qkv_lens.lesson import load_lesson
from qkv_lens.runs import training_runs
from qkv_lens.spoken import spoken
from qkv_lens.texts import tr
from tests.helpers import LESSON, dry_run, shown_number, undescribed

SCENE = "RoleSwap"


@pytest.fixture(scope="module")
def runs():
    return training_runs(load_lesson(LESSON).params["training"])


def test_sliders_are_the_probes_at_every_snapshot(scene, runs):
    for k in range(len(runs["standard"].snapshots)):
        probes = scene.moments[f"snapshot_{k}"].probes
        for formula, run in runs.items():
            snap = run.snapshots[k]
            assert probes["step"] == snap.step
            want = [snap.probes[n] for n in ("W_Q", "W_K", "W_V")]
            assert probes[formula]["dots"] == pytest.approx(want, abs=1e-6)
            assert [float(v) for v in probes[formula]["values"]] == pytest.approx(want, abs=0.005 + 1e-9)
            assert f"{round(snap.accuracy * 100)}%" in probes[formula]["stats"][1]
            assert shown_number(probes[formula]["stats"][0]) == pytest.approx(snap.loss, rel=0.06)


def test_same_start_then_the_asker_follows_the_position(scene, runs):
    start = scene.moments["snapshot_0"].probes
    assert start["standard"]["dots"] == pytest.approx(start["swapped"]["dots"], abs=1e-9)
    # the storyboard's claim, as measured: V asks once it stands where Q stood
    assert scene.moments["roles"].probes["askers"] == {"standard": ["W_Q"], "swapped": ["W_V"]}
    for run in runs.values():
        assert run.heldout_accuracy >= 0.95


def test_the_swap_is_claimed_because_it_was_measured(scene):
    keys = [k for k, _ in scene.said]
    assert scene.moments["roles"].probes["settled"]
    assert "emerge_say" in keys and "outro_say" in keys
    assert not any("unsettled" in k or "watch_say" in k for k in keys)


def test_the_checkpoint_asks_which_matrix_learns_to_ask_after_the_swap(scene, runs):
    """Mid-training, before the sliders part: on the right, which matrix will
    learn to ask? The answer is the swapped run's measured asker (its final
    probe reads the wish more than the profile)."""
    asked = [b for b in scene.beats if b.ask is not None]
    assert [b.key for b in asked] == ["emerge_say"]
    final = runs["swapped"].snapshots[-1].probes
    measured = [n for n in ("W_Q", "W_K", "W_V") if final[n] > 0.5]
    ask = asked[0].ask
    assert ask.choices == ("W_Q", "W_K", "W_V") and [ask.choices[ask.answer]] == measured


def test_no_verdict_from_a_run_that_did_not_learn(tmp_path):
    lesson = tmp_path / "lesson.toml"
    lesson.write_text("[training]\npeople = 6\nseed = 1\n", encoding="utf-8")
    runs = training_runs(load_lesson(lesson).params["training"])
    assert not runs["standard"].learned
    scene = dry_run("RoleSwap", tmp_path, lesson=lesson, lang="zh")
    keys = [k for k, _ in scene.said]
    assert scene.moments["roles"].probes["settled"] is False
    assert "watch_say" in keys and "outro_unsettled_say" in keys
    assert "emerge_say" not in keys and "outro_say" not in keys
    assert not any(b.ask for b in scene.beats)      # no question whose answer the run cannot show
    assert undescribed(scene) == []                 # the unsettled runs' beats are described too (issue 42)


def test_q_and_v_trade_places_in_the_formula(scene):
    from scenes.kit import palette
    from scenes.role_swap import TEX

    before, after = scene.moments["swap_before"].probes, scene.moments["swap_after"].probes
    gold, teal, coral = (c.to_hex() for c in (palette.Q_GOLD, palette.K_TEAL, palette.V_CORAL))
    # the copy of the standard formula at the right panel's place: Q ... V
    assert before["formula"]["tex"] == list(TEX["standard"])
    assert before["formula"]["colors"][1:3] + before["formula"]["colors"][4:] == [gold, teal, coral]
    # after the swap the right formula reads V ... Q, one notation: sqrt(d_k)
    assert after["formula"]["tex"] == list(TEX["swapped"])
    assert after["formula"]["tex"][1] == "V" and after["formula"]["tex"][4] == "Q"
    assert after["formula"]["colors"][1:3] + after["formula"]["colors"][4:] == [coral, teal, gold]
    for tex in (*TEX["standard"], *TEX["swapped"]):
        assert r"\sqrt{d}" not in tex
    assert any(r"\sqrt{d_k}" in tex for tex in TEX["swapped"])
    # the Q moved from the first slot (inside the softmax) to the last, and the
    # V the other way: each ends where the other stood
    xs = before["formula"]["x"]
    assert before["q_x"] == pytest.approx(xs[1]) and before["v_x"] == pytest.approx(xs[4])
    assert after["q_x"] == pytest.approx(after["formula"]["x"][4])
    assert after["q_x"] - before["q_x"] > 1.5 and before["v_x"] - after["v_x"] > 1.5
    assert after["q_x"] == pytest.approx(before["v_x"], abs=0.1)
    assert after["v_x"] == pytest.approx(before["q_x"], abs=0.1)
    # it happens in the beat that says so, before any training is shown
    keys = [k for k, _ in scene.said]
    assert keys.index("intro_say") < keys.index("swap_say") < keys.index("train_say")
    swap = next(b for b in scene.beats if b.key == "swap_say")
    assert scene.moments["snapshot_1"].probes["time"] > swap.end


def test_sentences_write_w_q_as_everywhere_else(scene):
    said = dict(scene.said)
    assert "W_Q" in said["result_say"] and "W_V" in said["result_say"]
    assert "WQ" not in said["result_say"] and "WV" not in said["result_say"]


def test_same_start_yet_different_losses_is_said_and_shown(scene, runs):
    from qkv_lens.numbers import sci_text

    said = dict(scene.said)["train_say"]
    losses = [sci_text(runs[f].snapshots[0].loss) for f in ("standard", "swapped")]
    assert losses[0] != losses[1]
    assert losses[0] in said and losses[1] in said
    moment = scene.moments["same_start"].probes
    # the boxes sit round the two loss lines, which show those numbers
    for box, line in zip(moment["boxes"], moment["losses"]):
        assert box[0] < line[0] and box[1] < line[1] and box[2] > line[2] and box[3] > line[3]
        assert box[2] - line[2] < 0.3 and line[0] - box[0] < 0.3
    assert [shown_number(s) for s in moment["boxed"]] == pytest.approx([runs[f].snapshots[0].loss
                                                                       for f in ("standard", "swapped")], rel=0.06)


def test_a_slider_is_shown_as_the_balance_of_w_q_halves(scene, runs):
    """Issue 38: what a slider measures was abstract.  Before the weights collapse into a slider,
    W_Q's rows that read who a guest is and those that read whom they seek become two weights
    at the two ends of its track, each as large as its half's share of W_Q (the Frobenius norm of
    those rows, computed here with numpy), and the dot lands where they balance: the probe."""
    W = runs["standard"].snapshots[0].weights["W_Q"]
    half = W.shape[0] // 2
    who, seek = np.sqrt((W[:half] ** 2).sum()), np.sqrt((W[half:] ** 2).sum())
    m = scene.moments["balance"].probes
    assert m["pulls"] == pytest.approx([who, seek])
    assert m["bars"][0] / m["bars"][1] == pytest.approx(who / seek, rel=1e-6)
    assert m["dot"] == pytest.approx(seek / (who + seek), abs=1e-6)
    assert m["dot"] == pytest.approx(runs["standard"].snapshots[0].probes["W_Q"], abs=1e-6)
    # the weights hang at the track's two ends: who I am at the left, whom I seek at the right
    (l0, _, r0, t0), (l1, _, r1, t1), track = *m["ends"], m["track"]
    assert l0 <= track[0] <= r0 and l1 <= track[2] <= r1 and max(t0, t1) < track[1] + 0.01
    beat = next(b for b in scene.beats if b.key == "probe_say")
    assert scene.said.index(("probe_say", beat.say)) < [k for k, _ in scene.said].index("swap_say")


def test_the_swapped_run_starts_from_the_same_sliders(scene):
    dots = scene.moments["same_sliders"].probes["dots"]
    assert dots["standard"] == pytest.approx(dots["swapped"], abs=1e-9)


def test_each_asking_slot_points_at_its_asker(scene):
    """The slot inside the softmax is boxed in each formula (Q on the left, V
    on the right) and an arrow runs from it to the slider of the matrix that
    stands there, crossing no other label on the way."""
    from scenes.kit import palette

    moment = scene.moments["slots"]
    m = moment.probes
    assert m["slot_tex"] == ["Q", "V"]
    assert set(m["colors"]) == {palette.FOCUS.to_hex()}
    for slot, path, row in zip(m["slots"], m["paths"], m["rows"]):
        (x0, y0), (x1, y1) = path[0], path[-1]
        assert slot[0] <= x0 <= slot[2] and abs(y0 - slot[1]) < 0.1       # leaves the slot's box
        assert y1 == pytest.approx(row[3] + 0.14, abs=0.05) or (row[0] - 0.2 < x1 < row[0] and row[1] < y1 < row[3])
        inner = [(x, y) for x, y in path if min(abs(y - y0), abs(y - y1)) > 0.2]
        for lab in moment.labels:
            l, b, r, t = lab.box
            assert not any(l < x < r and b < y < t for x, y in inner), f"the arrow crosses {lab.content!r}"


def test_the_content_carrier_is_marked_in_each_run(scene, runs):
    """Issue 38: "the one standing where the content is taken learns to carry content" had no
    picture.  As it is said, each formula's content slot (V on the left, Q on the right) is boxed
    and the matrix standing there (W_V, W_Q) is marked with its tag; and that matrix does carry
    content: it brings every guest of the party their own profession (qkv_math.readouts)."""
    from qkv_lens.texts import tr
    m = scene.moments["carriers"].probes
    assert m["slot_tex"] == ["V", "Q"] and m["rows"] == ["W_V", "W_Q"]
    for box, name in zip(m["boxes"], m["names"]):
        assert box[0] < name[0] and box[1] < name[1] and box[2] > name[2] and box[3] > name[3]
    assert m["tags"] == [tr(scene.lang, "role_swap.carrier").replace(" ", "")] * 2     # as Pango reads it back
    beat = next(b for b in scene.beats if b.key == "outro_say")
    phrase = tr(scene.lang, "role_swap.content_word")
    cue = next(c for c in beat.cues if phrase in c.text.replace("\n", " ") or phrase in c.text.replace("\n", ""))
    assert cue.start <= m["time"] <= beat.end
    for formula, name in (("standard", "W_V"), ("swapped", "W_Q")):
        run = runs[formula]
        X, _ = run.display_party
        n_jobs = X.shape[1] // 2
        content = run.snapshots[-1].weights[name]
        assert (X @ content).argmax(1).tolist() == X[:, :n_jobs].argmax(1).tolist()


def test_the_talk_goes_to_the_training(scene, runs):
    """Issue 38: stretches of 7-11 s where only the talk changed.  From the moment training begins
    to the result, a new snapshot comes at least every 2.5 s, over the three beats that tell it,
    and the final one is on screen before its numbers are read."""
    times = [scene.moments[f"snapshot_{k}"].probes["time"] for k in range(len(runs["standard"].snapshots))]
    beats = {b.key: b for b in scene.beats}
    assert all(b - a <= 2.5 for a, b in zip(times[1:], times[2:]))
    for key in ("train_say", "emerge_say", "result_say"):
        assert any(beats[key].start <= t <= beats[key].end for t in times[1:]), key
    final = scene.moments["final_shown"].probes
    assert times[-1] <= final["named"] and final["time"] <= final["named"]


def test_spanish_as_a_native_teacher_writes_it():
    """Issue 39: "intercambiadas", not "cambiadas"; "la misma inicialización aleatoria"."""
    from qkv_lens.texts import TEXTS
    es = {k: v for k, v in TEXTS["es"].items() if k.startswith("role_swap.")}
    assert es["role_swap.swapped"] == "Q y V intercambiadas"
    assert "misma inicialización aleatoria" in es["role_swap.intro_say"]
    assert not any("mismo inicio aleatorio" in v for v in es.values())
    assert "qué parte de su peso lee a quién busca" not in es["role_swap.probe_say"]


def test_the_scene_picks_up_the_question_and_closes_the_lesson(scene):
    """Its first sentence answers RolesEmerge's last question (do the roles come from the names?);
    its last closes the lesson on what a projection matrix learns."""
    from qkv_lens.texts import GLOSSARY
    first, last = scene.said[0], scene.said[-1]
    assert first[0] == "intro_say" and last[0] == "outro_say"
    assert GLOSSARY["projection_matrix"][scene.lang] in last[1]


def test_the_descriptions_say_every_slider_and_loss_the_runs_reach(scene, runs):
    """Issue 42: a listener hears both runs' sliders at the start and at the end, and the last losses as
    the board writes them (mantissa times ten to a power): from the runs, not from the scene."""
    lang, said = scene.lang, {b.key: b.describe for b in scene.beats}
    names = ("W_Q", "W_K", "W_V")
    for formula, key in (("standard", "probe_say"), ("swapped", "swap_say")):
        start = runs[formula].snapshots[0].probes
        for name in names:
            assert f"{name} {spoken(start[name], lang, 2)}" in said[key], (formula, name)
    for formula in runs:
        last = runs[formula].snapshots[-1]
        assert all(f"{n} {spoken(last.probes[n], lang, 2)}" in said["result_say"] for n in names)
        mantissa, power = f"{last.loss:.1e}".split("e")
        assert tr(lang, "describe.power", m=mantissa, p=spoken(int(power), lang)) in said["result_say"]
    assert "W_Q" in said["outro_say"] and "W_V" in said["outro_say"]
