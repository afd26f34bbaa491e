"""The optional voice of the narration: ``none`` (default), ``espeak`` or
``recorded``.  ``voice_clip`` gives the audio of one beat and its length; a
scene's beat lasts at least that long (plus a short pause).

``espeak`` is a draft voice: espeak-ng (Debian package ``espeak-ng``) speaks
each beat offline, in the voice its language's row of the text tables
names (``voice = "cmn"`` for zh, ``"en"`` for en; ``qkv_lens.languages``).  It is robotic, but it
times the video with a voice before anyone records one.  Its WAVs are kept in
``<cache dir>/voice/`` (see ``qkv_lens.store.cache_dir``), named by a hash of
the text, language, espeak voice and espeak-ng version, so a re-render speaks
nothing again.

``recorded`` plays the author's own recordings, one file per beat, beside the
lesson file: ``voice/<lang>/<Scene>/<beat-id>.wav`` (or ``.mp3``, ``.m4a``);
``<beat-id>.description.wav`` is the beat's description, which the export's
described track plays (``qkv_lens.app.described``), whatever the voice.
A missing recording is silence for that beat and one warning line on stderr
naming the expected path; a file that is not audio is a ``VoiceError`` (the
scene turns it into one error line and exit status 2).  Anything but a plain
PCM WAV is converted once (PyAV) into a cached 16-bit WAV, which manim mixes
without ffmpeg.

This module is imported by the lesson loader: it imports nothing heavy at
module level.
"""
from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys
import wave
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from qkv_lens.languages import language
from qkv_lens.lesson import VOICES
from qkv_lens.store import Unsafe, cache_dir, escaped, inside, regular_file, shown, write_atomic

AUDIO_EXTENSIONS = (".wav", ".mp3", ".m4a")
ESPEAK = "espeak-ng"
VOICE_FOLDER = "voice"                      # beside the lesson file


class VoiceError(Exception):
    """A voice that cannot be used (a recording that is not audio, no
    espeak-ng, an unknown mode): one line, exit status 2."""


@dataclass(frozen=True)
class Clip:
    path: Path | None      # the audio file, or None for silence
    seconds: float         # its length (0 for silence)


SILENCE = Clip(None, 0.0)


def voice_mode(lesson_voice: str = "none") -> str:
    """QKV_VOICE (set by ``qkv-lens render --voice``) or the lesson's ``voice``
    (an unknown value is refused by ``voice_clip``, inside the first beat)."""
    return os.environ.get("QKV_VOICE") or lesson_voice


def warn(message: str) -> None:
    print(f"qkv-lens: warning: {escaped(message)}", file=sys.stderr, flush=True)


def voice_clip(mode: str, scene: str, beat: str, text: str, lang: str, lesson_dir: Path) -> Clip:
    """The audio of one beat: silence for ``none``, espeak-ng's reading of
    ``text`` for ``espeak``, the author's recording (or silence and a warning
    when it is missing) for ``recorded``."""
    if mode == "none":
        return SILENCE
    if mode == "espeak":
        path = espeak_wav(text, lang)
        return Clip(path, wav_seconds(path))
    if mode == "recorded":
        found = recording_path(lesson_dir, lang, scene, beat)
        if found is None:
            warn(f"no recording for beat {beat!r} of {scene} ({lang}): expected "
                 f"{shown(expected_recording(lesson_dir, lang, scene, beat))}; that beat is silent")
            return SILENCE
        return recorded_clip(found)
    raise VoiceError(f"unknown voice {mode!r}: expected one of {', '.join(map(repr, VOICES))}")


# -- the cache ---------------------------------------------------------------

def voice_cache() -> Path:
    return cache_dir() / "voice"


# -- espeak ------------------------------------------------------------------

@lru_cache(maxsize=1)
def espeak_version() -> str:
    """espeak-ng's version line (part of the cache keys), or VoiceError when
    it is not installed."""
    try:
        out = subprocess.run([ESPEAK, "--version"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        raise VoiceError(f"--voice espeak needs {ESPEAK}, which is not installed "
                         f"(sudo apt-get install --no-install-recommends espeak-ng)") from None
    # "eSpeak NG text-to-speech: 1.51  Data at: /usr/lib/..." -> "1.51"
    return out.split(":", 1)[-1].split("Data at")[0].strip() or out.strip()


def espeak_wav(text: str, lang: str) -> Path:
    """The WAV of espeak-ng reading ``text`` (made once, then from the cache)."""
    voice = language(lang).voice
    key = "\0".join((text, lang, voice, espeak_version()))
    path = voice_cache() / f"espeak-{lang}-{hashlib.sha256(key.encode()).hexdigest()[:24]}.wav"
    if path.is_file():
        try:
            wav_seconds(path)
            return path
        except VoiceError:
            pass            # a damaged cache file is spoken again

    def speak(tmp: Path) -> None:
        proc = subprocess.run([ESPEAK, "-b", "1", "-v", voice, "-w", str(tmp), "--stdin"],
                              input=text.encode("utf-8"), capture_output=True)
        if proc.returncode != 0 or tmp.stat().st_size == 0:
            err = proc.stderr.decode(errors="replace").strip().splitlines()
            raise VoiceError(f"{ESPEAK} -v {shown(voice)} failed (status {proc.returncode}): "
                             f"{err[-1] if err else 'no audio written'}")
    write_atomic(path, speak)
    return path


# -- recordings --------------------------------------------------------------
# A recording is untrusted input (it may come with a colleague's lesson): a
# regular file inside the lesson's folder, of at most MAX_RECORDING_BYTES,
# decoded once (PyAV) into a cached 16-bit WAV of at most
# MAX_RECORDING_SECONDS.  Its length is that of the decoded stream, never
# what its header claims; nothing is read whole before its size is checked.

MAX_RECORDING_BYTES = 64 << 20     # 6 minutes of 48 kHz stereo 16-bit WAV
MAX_RECORDING_SECONDS = 120.0      # a beat is one or two sentences


def recordings_dir(lesson_dir: Path, lang: str, scene: str) -> Path:
    return Path(lesson_dir) / VOICE_FOLDER / lang / scene


def expected_recording(lesson_dir: Path, lang: str, scene: str, beat: str) -> Path:
    """Where the recording of ``beat`` goes (as WAV; .mp3 and .m4a also do)."""
    return recordings_dir(lesson_dir, lang, scene) / f"{beat}.wav"


def _name(lang: str, scene: str, file: str) -> str:
    return f"{VOICE_FOLDER}/{lang}/{scene}/{file}"


def checked(lesson_dir: Path, name: str) -> Path:
    """The real path of the recording ``name`` (relative to the lesson's
    folder): inside that folder once symlinks are followed, a regular file
    of at most MAX_RECORDING_BYTES; VoiceError (one line) otherwise."""
    try:
        real = inside(lesson_dir, name, "recording")
        regular_file(real, MAX_RECORDING_BYTES, "recording")
    except Unsafe as err:
        raise VoiceError(str(err)) from None
    except OSError as err:
        raise VoiceError(f"{shown(Path(lesson_dir) / name)}: cannot read it ({err.strerror or err})") from None
    return real


def recording_path(lesson_dir: Path, lang: str, scene: str, beat: str) -> Path | None:
    """The checked recording of ``beat``, if there is one."""
    for ext in AUDIO_EXTENSIONS:
        name = _name(lang, scene, f"{beat}{ext}")
        if os.path.lexists(Path(lesson_dir) / name):
            return checked(lesson_dir, name)
    return None


def recordings(lesson_dir: Path, lang: str, scene: str) -> dict[str, Path]:
    """Every recording of a scene in a language, by its path relative to the
    lesson's folder (sorted), each checked (``checked``)."""
    folder = recordings_dir(lesson_dir, lang, scene)
    if not os.path.lexists(folder):
        return {}
    try:
        inside(lesson_dir, f"{VOICE_FOLDER}/{lang}/{scene}", "recordings folder")
        names = sorted(p.name for p in folder.iterdir() if p.suffix.lower() in AUDIO_EXTENSIONS)
    except Unsafe as err:
        raise VoiceError(str(err)) from None
    except OSError:
        return {}
    found = {}
    for file in names:
        if (folder / file).is_dir():
            continue
        found[_name(lang, scene, file)] = checked(lesson_dir, _name(lang, scene, file))
    return found


def stray_recordings(lesson_dir: Path, lang: str, scene: str, beat_ids) -> list[str]:
    """One line per recording of the scene whose name is no beat id (it is
    never played), naming the nearest beat id: ``Intro.wav`` -> ``intro``."""
    import difflib

    ids = list(beat_ids)
    lines = []
    for name in recordings(lesson_dir, lang, scene):
        stem = Path(name).stem
        if stem in ids or stem.removesuffix(".description") in ids:   # a beat's, or its description's
            continue
        near = difflib.get_close_matches(stem.lower(), ids, n=1, cutoff=0.0) or ids[:1]
        hint = f"; did you mean {near[0]}{Path(name).suffix}?" if near else ""
        lines.append(f"{shown(Path(lesson_dir) / name)} is named after no beat of {scene}, so it is "
                     f"not played{hint} (qkv-lens script {scene} lists the beat ids)")
    return lines


def file_digest(path: Path) -> str:
    """The sha256 of a checked file, read in pieces (never whole)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def recordings_digest(lesson_dir: Path, lang: str, scene: str) -> str:
    """One digest of the names and bytes of a scene's recordings (its cache key part)."""
    h = hashlib.sha256()
    for name, path in recordings(lesson_dir, lang, scene).items():
        h.update(name.rsplit("/", 1)[-1].encode() + b"\0" + bytes.fromhex(file_digest(path)))
    return h.hexdigest()


def check_recordings(lesson_dir: Path, lang: str, scene: str) -> None:
    """Raise VoiceError for the first recording of the scene that is not
    audio, too long, too large or outside the lesson's folder."""
    for path in recordings(lesson_dir, lang, scene).values():
        recorded_clip(path)


def wav_seconds(path: Path) -> float:
    """The length of a PCM WAV file that qkv-lens wrote (espeak-ng's, or a
    converted recording): VoiceError if it is not one, or if its header
    claims more sound than the file holds or more than MAX_RECORDING_SECONDS."""
    try:
        size = os.stat(path).st_size
        with wave.open(str(path), "rb") as w:
            rate, frames, width = w.getframerate(), w.getnframes(), w.getsampwidth()
            if rate <= 0 or width not in (1, 2, 3, 4):
                raise wave.Error(f"unsupported WAV ({width} bytes a sample, {rate} Hz)")
            if frames * width * w.getnchannels() > size:
                raise wave.Error(f"its header claims {frames / rate:.0f} s, more than the file holds")
            if frames / rate > MAX_RECORDING_SECONDS:
                raise wave.Error(f"{frames / rate:.0f} s long, more than {MAX_RECORDING_SECONDS:g} s")
            return frames / rate
    except (wave.Error, EOFError, OSError) as err:
        raise VoiceError(f"{shown(path)}: not a usable PCM WAV file ({err})") from None


def recorded_clip(path: Path) -> Clip:
    """The clip of a checked recording: decoded once (cached by its bytes)
    into a 16-bit WAV whose length is that of the decoded sound; VoiceError
    if it is not audio or lasts longer than MAX_RECORDING_SECONDS."""
    converted = voice_cache() / f"recorded-{file_digest(path)[:24]}.wav"
    if converted.is_file():
        try:
            return Clip(converted, wav_seconds(converted))
        except VoiceError:
            pass            # a damaged cache file is converted again
    write_atomic(converted, lambda tmp: _to_pcm_wav(path, tmp))
    return Clip(converted, wav_seconds(converted))


def _to_pcm_wav(src: Path, dest: Path) -> None:
    """Decode ``src`` with PyAV into a 16-bit PCM WAV, counting the decoded
    samples: VoiceError if it is not audio, or once it passes
    MAX_RECORDING_SECONDS (whatever its header says, decoding stops there)."""
    import av

    try:
        with av.open(str(src)) as inp:
            if not inp.streams.audio:
                raise VoiceError(f"{shown(src)}: not an audio file (no audio stream)")
            stream = inp.streams.audio[0]
            rate = stream.rate or stream.codec_context.sample_rate or 44100
            if not 1000 <= rate <= 384000:
                raise VoiceError(f"{shown(src)}: not a usable recording ({rate} samples a second)")
            layout = "mono" if (stream.channels or 1) == 1 else "stereo"
            resampler = av.AudioResampler(format="s16", layout=layout, rate=rate)
            most, samples = round(MAX_RECORDING_SECONDS * rate), 0
            with av.open(str(dest), "w", format="wav") as out:
                ostream = out.add_stream("pcm_s16le", rate=rate, layout=layout)
                for frame in inp.decode(stream):
                    for f in resampler.resample(frame):
                        samples += f.samples
                        if samples > most:
                            raise VoiceError(f"{shown(src)}: a recording longer than {MAX_RECORDING_SECONDS:g} s; "
                                             "a beat's recording is one or two sentences")
                        out.mux(ostream.encode(f))
                for f in resampler.resample(None):
                    out.mux(ostream.encode(f))
                out.mux(ostream.encode(None))
    except VoiceError:
        raise
    except Exception as err:  # noqa: BLE001 - PyAV raises many kinds for a non-audio file
        reason = getattr(err, "strerror", None) or type(err).__name__
        raise VoiceError(f"{shown(src)}: not an audio file ({reason})") from None


# -- the voice track ------------------------------------------------------------

MIX_RATE = 48000     # samples a second of the mixed track (Opus needs 48 kHz)


def mix(sounds: list[dict], rate: int = MIX_RATE) -> np.ndarray:
    """One mono 16-bit track of the clips ``sounds`` (``{"file", "time"}``
    as a scene recorded them: PCM WAVs qkv-lens wrote, checked with
    ``wav_seconds``), each starting at sample ``round(time * rate)``;
    overlaps add, clipped to 16 bits."""
    import av

    placed: list[tuple[int, np.ndarray]] = []
    for sound in sounds:
        path, at = Path(sound["file"]), float(sound["time"])
        if not (math.isfinite(at) and at >= 0):
            raise VoiceError(f"a sound at {at!r} s: expected a time of 0 or more")
        wav_seconds(path)
        resampler = av.AudioResampler(format="s16", layout="mono", rate=rate)
        with av.open(str(path)) as inp:
            parts = [f.to_ndarray()[0] for frame in inp.decode(audio=0) for f in resampler.resample(frame)]
        parts += [f.to_ndarray()[0] for f in resampler.resample(None)]
        placed.append((round(at * rate), np.concatenate(parts) if parts else np.zeros(0, np.int16)))
    track = np.zeros(max((a + len(p) for a, p in placed), default=0), np.int32)
    for a, p in placed:
        track[a:a + len(p)] += p
    return np.clip(track, -32768, 32767).astype(np.int16)


def write_wav(path: Path, samples: np.ndarray, rate: int) -> None:
    """``samples`` (mono int16) as a 16-bit PCM WAV."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.ascontiguousarray(samples, dtype="<i2").tobytes())


def read_wav(path: Path) -> tuple[np.ndarray, int]:
    """(samples, rate) of a mono 16-bit PCM WAV that ``write_wav`` wrote."""
    with wave.open(str(path), "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise VoiceError(f"{shown(path)}: not a mono 16-bit voice track")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2"), w.getframerate()


# -- what the cache key of a render needs -------------------------------------

def voice_key(mode: str, lesson_dir: Path, lang: str, scene: str) -> dict | None:
    """The part of a render's cache key the voice adds: None for ``none``
    (keys stay as they were), the espeak-ng version for ``espeak``, the
    digest of the scene's recordings in that language for ``recorded``."""
    if mode == "none":
        return None
    if mode == "espeak":
        return {"mode": mode, "espeak": espeak_version(), "voice": language(lang).voice}
    return {"mode": mode, "recordings": recordings_digest(lesson_dir, lang, scene)}
