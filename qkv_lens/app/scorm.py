"""``qkv-lens export --scorm``: the lesson of one language and quality as a
SCORM 1.2 package, ``<lang>/<quality>/lesson.scorm.zip``, which a learning
platform (Moodle, Canvas, Blackboard, Open edX) imports as one activity.

The zip holds ``imsmanifest.xml`` at its root (one organization, one item,
one SCO resource listing every file; metadata schema "ADL SCORM", version
"1.2"; the item's mastery score the lesson's ``pass_score`` when it asks
checkpoints), the lesson page as ``index.html`` (``page.page_html`` for that
language and quality, with ``scorm`` set: it finds the platform's API and
reports to it, and works unchanged without one) and the clips, posters and
subtitles it shows, under the paths the page names.

What the page reports (``page.js``): ``cmi.core.lesson_status`` (incomplete
until every clip has played to its end; then completed, or with
checkpoints passed or failed against ``pass_score``),
``cmi.core.score.raw`` (the share of checkpoints right, 0 to 100), each
answer as ``cmi.interactions.n``, and the place in the lesson and the
answers in ``cmi.suspend_data`` (at most 4096 characters: ``suspend_bound``;
a lesson whose answers could not fit is refused).
"""
from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path
from xml.etree import ElementTree as ET

from qkv_lens.app import manifest, page
from qkv_lens.lesson import Chapter
from qkv_lens.store import Unsafe

NAME = "lesson.scorm.zip"
SUSPEND_LIMIT = 4096     # characters of cmi.suspend_data in SCORM 1.2 (CMIString4096)
MAX_RESPONSE = 16        # characters of a number answer as typed (the page's field holds no more)
ID_LENGTH = 12           # the lesson's id in the page's data
MAX_TENTHS = 6 * 3600 * 10   # a place in a clip, in tenths of a second (a clip lasts at most 6 h)
PACKAGED = (".mp4", ".png", ".vtt")   # what the page shows of a clip (its beats are in the page)
CP = "http://www.imsproject.org/xsd/imscp_rootv1p1p2"
ADLCP = "http://www.adlnet.org/xsd/adlcp_rootv1p2"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
LOCATIONS = (f"{CP} imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd "
             f"{ADLCP} adlcp_rootv1p2.xsd")


class PackageError(Exception):
    """The package cannot be made (one line)."""


def suspend_bound(clips: int, answers: Sequence[bool]) -> int:
    """The longest ``cmi.suspend_data`` the page can write for a lesson of
    ``clips`` clips and checkpoints ``answers`` (True: a number, False: a
    choice), as ``pack`` in ``page.js`` writes it:
    ``1;<id>;<a 0/1 per clip>;<clip>,<tenths>;<answers joined by |>``."""
    place = len(str(max(clips - 1, 0))) + 1 + len(str(MAX_TENTHS))
    given = sum(MAX_RESPONSE if number else 1 for number in answers) + max(len(answers) - 1, 0)
    return len("1;") + ID_LENGTH + 1 + clips + 1 + place + 1 + given


def manifest_xml(identifier: str, title: str, files: Sequence[str], mastery: int | None) -> bytes:
    """``imsmanifest.xml`` for one SCO launched at ``index.html`` that uses
    ``files`` (paths inside the zip); ``mastery``: the score (0 to 100) that
    passes, or None."""
    ET.register_namespace("", CP)
    ET.register_namespace("adlcp", ADLCP)
    ET.register_namespace("xsi", XSI)
    root = ET.Element(f"{{{CP}}}manifest", {"identifier": identifier, "version": "1",
                                             f"{{{XSI}}}schemaLocation": LOCATIONS})
    meta = ET.SubElement(root, f"{{{CP}}}metadata")
    ET.SubElement(meta, f"{{{CP}}}schema").text = "ADL SCORM"
    ET.SubElement(meta, f"{{{CP}}}schemaversion").text = "1.2"
    orgs = ET.SubElement(root, f"{{{CP}}}organizations", {"default": "lesson"})
    org = ET.SubElement(orgs, f"{{{CP}}}organization", {"identifier": "lesson"})
    ET.SubElement(org, f"{{{CP}}}title").text = title
    item = ET.SubElement(org, f"{{{CP}}}item", {"identifier": "item", "identifierref": "sco", "isvisible": "true"})
    ET.SubElement(item, f"{{{CP}}}title").text = title
    if mastery is not None:
        ET.SubElement(item, f"{{{ADLCP}}}masteryscore").text = str(mastery)
    resources = ET.SubElement(root, f"{{{CP}}}resources")
    sco = ET.SubElement(resources, f"{{{CP}}}resource", {"identifier": "sco", "type": "webcontent",
                                                         f"{{{ADLCP}}}scormtype": "sco", "href": "index.html"})
    for name in files:
        ET.SubElement(sco, f"{{{CP}}}file", {"href": name})
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


def write_package(out_root: Path, lang: str, folder: str, chapters: Sequence[Chapter], scenes: Sequence[str],
                  dest: Path, pass_score: float, checkpoints: bool = True, lesson_dir: Path | None = None) -> None:
    """Write the package of ``scenes`` (class names, in the order of the
    lesson's ``chapters``) in ``lang`` at the quality ``folder`` (480p15,
    ...) to ``dest``.  PackageError (one line) when the page cannot be made
    or its answers could not fit in ``cmi.suspend_data``."""
    wanted = set(scenes)
    parts = [Chapter(ch.title, tuple(s for s in ch.scenes if s in wanted)) for ch in chapters]
    parts = [ch for ch in parts if ch.scenes]
    try:
        html, data = page.page_html(out_root, parts, lesson_dir, language=lang, checkpoints=checkpoints,
                                    only=(lang, folder), scorm={"pass": pass_score})
    except page.PageError as err:
        raise PackageError(str(err)) from None
    clips = data["clips"].get(lang, [])
    numbers = [("number" in b["ask"]) for c in clips for b in c["beats"] if "ask" in b]
    need = suspend_bound(len(clips), numbers)
    if need > SUSPEND_LIMIT:
        raise PackageError(f"the lesson's {len(numbers)} checkpoints could need {need} characters of a learning "
                           f"platform's suspend_data, which holds {SUSPEND_LIMIT}: ask fewer, or export fewer scenes")
    entries = manifest.load_checked(out_root)
    shown_scenes = {c["scene"] for c in clips}
    files = sorted(f for e in entries.values()
                   if e["scene"] in shown_scenes and (e["language"], e["quality"], e["format"]) == (lang, folder, "mp4")
                   for f in e["files"] if f.endswith(PACKAGED))
    mastery = round(100 * pass_score) if numbers else None
    xml = manifest_xml(f"qkv-lens-{data['id']}", data["ui"][lang]["title"], ["index.html", *files], mastery)
    try:
        with zipfile.ZipFile(dest, "w") as zf:
            zf.writestr("imsmanifest.xml", xml, zipfile.ZIP_DEFLATED)
            zf.writestr("index.html", html.encode("utf-8"), zipfile.ZIP_DEFLATED)
            for name in files:        # each inside out_root, a regular file (manifest.listed)
                zf.write(manifest.listed(out_root, name), name, zipfile.ZIP_STORED if name.endswith(".mp4")
                         else zipfile.ZIP_DEFLATED)
    except Unsafe as err:
        raise PackageError(str(err)) from None
