"""The same frames give the same video (issue 28): the settings every render
uses keep x264 off its AVX-512 code, which reads memory it has not written."""
import configparser
import json
import os
import subprocess
import sys
from pathlib import Path

import av.logging
import pytest

from qkv_lens.app import encoder
from qkv_lens.app.render import Options, manim_command
from qkv_lens.registry import find

# One child process: manim reads ``cfg`` as a render does (its -ql size, rate
# and encoder options); then manim's own segment encoder (a render's path)
# encodes the same frames twice in turn and twice at once.  Printed: the
# packets' digests of each encode.  The frames are a scrolling noise picture:
# what x264 decides on it hangs on the memory it misreads on its AVX-512 path.
CHILD = r"""
import hashlib, json, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
import av, numpy as np
from manim import config
from manim._config.output import OutputFormat, OutputSpec
from manim._config.video_encoder import resolve_video_encoder
from manim.scene.video_segment_encoder import VideoSegmentEncoder

cfg, out = sys.argv[1], Path(sys.argv[2])
config.digest_file(cfg)
config.quality = "low_quality"
mp4 = OutputSpec(format=OutputFormat.MP4, transparent=False, save_sections=False, fallback_to_still=False)
spec = resolve_video_encoder(mp4, width=config.pixel_width, height=config.pixel_height,
                             frame_rate=config.frame_rate, codec=config.video_codec,
                             pixel_format=config.pixel_format, options=config.video_encoder_options)
w, h = spec.width, spec.height
noise = np.random.default_rng(7).integers(0, 256, (h, w + 60, 4), dtype=np.uint8)
noise[..., 3] = 255
frames = [np.ascontiguousarray(noise[:, 2 * i:2 * i + w]) for i in range(30)]

def encode(name):
    target = out / f"{name}.mp4"
    segment = VideoSegmentEncoder(target=target, spec=spec)
    for frame in frames:
        segment.write_frame(frame)
    segment.finish()
    with av.open(str(target)) as video:
        return hashlib.sha256(b"".join(bytes(p) for p in video.demux(video=0))).hexdigest()

digests = [encode("first"), encode("second")]
with ThreadPoolExecutor(2) as pool:
    digests += list(pool.map(encode, ["at-once-1", "at-once-2"]))
print(json.dumps({"digests": digests, "options": dict(spec.options), "size": [w, h]}))
"""


def encodes(cfg: Path, folder: Path, perturbs: list[str | None]) -> list[dict]:
    """What CHILD prints, in one process for each of ``perturbs`` (all at
    once), each with glibc's ``MALLOC_PERTURB_`` at that value (every new
    block of memory starts filled with the byte's complement) or unset."""
    procs = []
    for k, perturb in enumerate(perturbs):
        (folder / str(k)).mkdir()
        env = {key: v for key, v in os.environ.items() if key != "MALLOC_PERTURB_"}
        if perturb is not None:
            env["MALLOC_PERTURB_"] = perturb
        procs.append(subprocess.Popen([sys.executable, "-c", CHILD, str(cfg), str(folder / str(k))], env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    runs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err[-2000:]
        runs.append(json.loads(out.strip().splitlines()[-1]))
    return runs


def test_the_same_frames_give_the_same_packets_whatever_the_heap_held(tmp_path):
    """Three fresh processes whose new memory starts out different (as
    left, all 0xfe, all 0xaa), each encoding the frames twice in turn and
    twice at once, with a render's settings: every encode the same packets.
    (With the shipped manim.cfg alone, on a CPU with AVX-512, they differ.)"""
    cfg = encoder.config_file(tmp_path)
    runs = encodes(cfg, tmp_path, [None, "1", "85"])
    assert runs[0]["size"] == [854, 480]                      # -ql: 854 is not a whole number of macroblocks
    assert runs[0]["options"]["preset"] == "veryfast"         # the shipped settings are kept
    digests = [d for run in runs for d in run["digests"]]
    assert len(digests) == 12 and len(set(digests)) == 1, digests


def test_avx512_is_left_out_only_where_x264_has_it():
    assert encoder.without_avx512(("MMX2", "SSE2Fast", "AVX2", "AVX512")) == "asm=MMX2,SSE2Fast,AVX2"
    assert encoder.without_avx512(("MMX2", "SSE2Fast", "AVX2")) is None
    assert encoder.without_avx512(()) is None
    level = av.logging.get_level()
    found = encoder.capabilities()
    assert found == encoder.x264_capabilities() and av.logging.get_level() == level   # the probe leaves logging be
    params = encoder.without_avx512(found)
    if params is not None:       # x264 takes the list back: all it found but AVX512
        assert encoder.x264_capabilities(params) == tuple(c for c in found if c != encoder.AVX512)


def test_a_render_reads_the_shipped_settings_with_avx512_off(tmp_path, monkeypatch):
    shipped = configparser.ConfigParser(interpolation=None)
    shipped.read(encoder.SHIPPED)
    monkeypatch.setattr(encoder, "capabilities", lambda: ("SSE2Fast", "AVX2", "AVX512"))
    cmd = manim_command(find("ThreeLenses"), Options(), tmp_path)
    used = Path(cmd[cmd.index("--config_file") + 1])
    assert used.parent == tmp_path
    ours = configparser.ConfigParser(interpolation=None)
    ours.read(used)
    for section in shipped.sections():
        for key, value in shipped.items(section):
            if (section, key) != (encoder.OPTIONS, "x264-params"):
                assert ours.get(section, key) == value, (section, key)
    kept = shipped.get(encoder.OPTIONS, "x264-params", fallback="")
    assert ours.get(encoder.OPTIONS, "x264-params") == ":".join(p for p in [kept, "asm=SSE2Fast,AVX2"] if p)
    monkeypatch.setattr(encoder, "capabilities", lambda: ("SSE2Fast", "AVX2"))
    cmd = manim_command(find("ThreeLenses"), Options(), tmp_path / "none")
    assert cmd[cmd.index("--config_file") + 1] == str(encoder.SHIPPED)


@pytest.mark.parametrize("shipped_params", ["", "bframes=2"])
def test_x264_params_the_shipped_file_sets_are_kept(tmp_path, monkeypatch, shipped_params):
    base = tmp_path / "shipped.cfg"
    base.write_text(f"[{encoder.OPTIONS}]\npreset = veryfast\n"
                    + (f"x264-params = {shipped_params}\n" if shipped_params else ""))
    monkeypatch.setattr(encoder, "SHIPPED", base)
    monkeypatch.setattr(encoder, "capabilities", lambda: ("AVX2", "AVX512"))
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(encoder.config_file(tmp_path))
    assert cfg.get(encoder.OPTIONS, "x264-params") == ":".join(p for p in [shipped_params, "asm=AVX2"] if p)
