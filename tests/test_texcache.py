"""Typeset formulas kept between renders, and manim's settings."""


from tests.helpers import ROOT


def test_typesetting_cache_seeds_and_publishes_svgs(tmp_path):
    from qkv_lens.app import texcache
    cache, media = tmp_path / "cache", tmp_path / "media"
    assert texcache.seed(media, cache) == 0 and not (media / "Tex").exists()   # nothing cached yet
    (media / "Tex").mkdir(parents=True)
    (media / "Tex" / "a1.svg").write_text("<svg>a</svg>")
    (media / "Tex" / "a1.tex").write_text("x")            # only SVGs travel
    (media / "Tex" / "empty.svg").write_text("")           # a conversion that wrote nothing
    assert texcache.publish(media, cache) == 1
    assert sorted(p.name for p in cache.iterdir()) == ["a1.svg"]
    assert texcache.publish(media, cache) == 0              # already there: not copied again
    fresh = tmp_path / "fresh"
    (fresh / "Tex").mkdir(parents=True)
    (fresh / "Tex" / "b2.svg").write_text("<svg>mine</svg>")
    (cache / "b2.svg").write_text("<svg>cached</svg>")
    assert texcache.seed(fresh, cache) == 1                 # a1 seeded; b2 of this render kept
    assert (fresh / "Tex" / "a1.svg").read_text() == "<svg>a</svg>"
    assert (fresh / "Tex" / "b2.svg").read_text() == "<svg>mine</svg>"


def test_typesetting_cache_that_cannot_be_written_is_left_alone(tmp_path):
    from qkv_lens.app import texcache
    media = tmp_path / "media"
    (media / "Tex").mkdir(parents=True)
    (media / "Tex" / "a1.svg").write_text("<svg>a</svg>")
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    assert texcache.publish(media, blocked / "tex") == 0    # no exception: the render itself succeeded
    assert not list(tmp_path.rglob("*.part"))


def test_typesetting_cache_lives_in_the_cache_folder_per_manim_version(tmp_path, monkeypatch):
    from qkv_lens.app import texcache
    monkeypatch.setenv("QKV_CACHE_DIR", str(tmp_path))
    assert texcache.tex_cache("0.22.0") == tmp_path / "tex" / "manim-0.22.0"
    assert texcache.tex_cache("0.23.0") != texcache.tex_cache("0.22.0")


def test_manim_reads_the_shipped_settings():
    # `qkv-lens init` and direct `manim` runs use the project's copy, the
    # pipeline the package's: the same file, and every setting a name manim knows
    # (a misspelt key would be ignored without a word)
    from manim._config.utils import ManimConfig, make_config_parser

    shipped = ROOT / "qkv_lens" / "manim.cfg"
    assert (ROOT / "manim.cfg").read_text() == shipped.read_text()
    parser = make_config_parser(str(shipped))
    known = ManimConfig().digest_parser(make_config_parser())._d
    ours = ManimConfig().digest_parser(parser)
    for key in parser["CLI"]:
        assert key in known, key
    assert ours.disable_caching
    assert not ours.notify_outdated_version   # no call to PyPI after each render
    assert ours.max_inflight_encoders == 2   # the next animation drawn while the last is encoded (docs/design.md)
    assert parser["video_encoder.options"]["x264-params"] == "bframes=0"   # no B-frames: a quarter of x264's time
    assert parser["video_encoder.options"]["preset"] == "veryfast"
