"""ShadowProjection: the drawn shadows are projections onto the wall."""
import numpy as np
import pytest

from tests.helpers import assert_clean_layout, assert_readable_beats, dry_run


@pytest.fixture(scope="module", params=["zh", "en"])
def scene(request, tmp_path_factory):
    return dry_run("ShadowProjection", tmp_path_factory.mktemp("sp"), lang=request.param)


@pytest.mark.parametrize("moment", ["parallel", "turned", "tilted"])
def test_shadows_on_the_wall_along_the_light(scene, moment):
    pr = scene.moments[moment].probes
    n, d = pr["normal"], pr["light"]
    for v, s in zip(pr["vertices"], pr["shadows"]):
        assert abs(s @ n) < 1e-6                                 # on the wall
        assert np.linalg.norm(np.cross(v - s, d)) < 1e-6         # along the light
    assert np.allclose(pr["outline"] @ n, 0, atol=1e-6)         # the dark outline too


def test_the_wall_turns_and_the_light_tilts(scene):
    a, b, c = (scene.moments[m].probes for m in ("parallel", "turned", "tilted"))
    assert not np.allclose(a["normal"], b["normal"])
    assert not np.allclose(b["light"], c["light"])
    assert not np.allclose(a["shadows"], b["shadows"]) and not np.allclose(b["shadows"], c["shadows"])


def test_rank_and_idempotence_shown(scene):
    pr = scene.moments["facts"].probes
    assert pr["rank"] == 2 and pr["idempotent"] < 1e-12
    assert pr["shown"][0].replace(" ", "").endswith("P=2")


def test_two_points_on_one_ray_share_a_shadow(scene):
    pr = scene.moments["pair"].probes
    start, end, second = pr["ray_start"], pr["ray_end"], pr["second"]
    # the second dot is drawn on the first point's light ray, up-light of it ...
    assert np.linalg.norm(np.cross(second - start, end - start)) < 1e-6
    assert np.linalg.norm(second - end) > np.linalg.norm(start - end) + 0.1
    # ... so the projection sends it to the very shadow the ray ends on
    assert np.allclose(second @ pr["P"], end, atol=1e-6)


def test_lamp_shadows_are_ray_plane_intersections(scene):
    pr = scene.moments["lamp"].probes
    L, n = pr["lamp"], pr["normal"]
    assert np.allclose(pr["starts"], L, atol=1e-6)
    for v, s in zip(pr["vertices"], pr["shadows"]):
        t = -(n @ L) / (n @ (v - L))
        assert np.allclose(s, L + t * (v - L), atol=1e-6)


def test_wall_coordinates(scene):
    pr = scene.moments["basis"].probes
    B = np.array(pr["axes"]).T                    # the drawn axes as the columns of B (3x2)
    assert np.allclose(B.T @ B, np.eye(2), atol=1e-6)             # unit length, at right angles
    assert np.allclose(pr["normal"] @ B, 0, atol=1e-6)            # lying in the wall
    shown = np.array([float(c) for c in pr["coords"]])
    assert np.allclose(shown, pr["shadow"] @ B, atol=0.005 + 1e-9)   # the numbers written are s B
    assert np.allclose(shown @ B.T, pr["shadow"], atol=0.02)          # and give the shadow back


def test_layout(scene):
    assert_clean_layout(scene)


def test_beats_are_readable(scene):
    assert_readable_beats(scene)
