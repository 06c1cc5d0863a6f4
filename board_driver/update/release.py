"""A release: wheels and a signed manifest, in one folder (or at one URL).

    release.json       the manifest: {"format": 1, "project": "treeboard", "version": "0.2.0",
                       "wheel": "treeboard-0.2.0-py3-none-any.whl", "complete": false,
                       "wheels": ["treeboard-0.2.0-py3-none-any.whl",
                                  "treeboard-0.2.0-cp311-cp311-linux_aarch64.whl", ...],
                       "files": [{"name": ..., "sha256": ..., "size": ...}, ...]}
    release.json.sig   the Ed25519 signature of release.json's exact bytes, in base64
    *.whl              the files the manifest names: the project's wheels, and with
                       `treeboard release --with-deps` every dependency's ("complete": true,
                       installable with no index)

The project's wheels: always the pure one (`wheel`, py3-none-any: the exact solver without its
compiled core, for any processor; what a board of a version before "wheels" installs), and
beside it, optionally, platform wheels that carry the solver's compiled core
(games/ai/tree_planting_core.c) for one processor and Python each (`wheels` names them all).
A board installs the most specific of them that its interpreter supports, as pip ranks tags
(`packaging.tags.sys_tags()`, most specific first; py3-none-any after every platform's), so a board
whose processor or Python no platform wheel fits gets the pure one (`pick`).

The maintainer's private key signs (`treeboard release --key`); a board holds only the public
key (PEM, the config's `update.public_key`, by default /etc/treeboard/release.pub). Ed25519
through `cryptography` (pyca). A release is checked in this order, and refused at the first
fault with one line naming the file: the signature (missing: unsigned; bad: tampered or
another key), then each file's size and SHA-256, then its version against the installed one.
Only the files the manifest names are ever used: they are copied out of the release first and
checked as copied, so a file swapped after the check is never the one installed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from packaging.tags import Tag, sys_tags
from packaging.utils import InvalidWheelFilename, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from board_driver.update import ReleaseRefused, UpdateError

MANIFEST = "release.json"
SIGNATURE = "release.json.sig"
FORMAT = 1
#: A manifest or a signature larger than this is no release of ours (read from a URL).
MAX_SMALL = 1 << 20
#: And a wheel larger than this (the project's is under 2 MB; cryptography's about 4).
MAX_WHEEL = 200 << 20
#: Compiled extension modules: in a platform wheel of this project, setup.py's one optional
#: Extension, the exact solver's compiled core (named there, not here: board_driver names no game).
EXTENSION_SUFFIXES = (".so", ".pyd")


@dataclass(frozen=True)
class Manifest:
    version: str
    wheel: str                 # the pure wheel (the fallback; all an older board knows)
    complete: bool
    files: tuple[dict, ...]
    raw: bytes
    wheels: tuple[str, ...]    # the project's wheels: the pure one and platform ones

    @property
    def names(self) -> list[str]:
        return [f["name"] for f in self.files]

    def pick(self, tags: list[Tag] | None = None) -> str | None:
        """The project's wheel for an interpreter with these tags (this one's by default):
        the one whose best tag comes first in them; None when none fits."""
        order = {tag: i for i, tag in enumerate(sys_tags() if tags is None else tags)}
        ranked = []
        for name in self.wheels:
            rank = min((order[t] for t in parse_wheel_filename(name)[3] if t in order), default=None)
            if rank is not None:
                ranked.append((rank, name))
        return min(ranked)[1] if ranked else None

    def needed(self, wheel: str) -> list[dict]:
        """The files a board that installs `wheel` uses: it, and every file that is not one
        of the project's wheels (the dependencies' wheels of a complete release)."""
        ours = set(self.wheels) | {self.wheel}
        return [f for f in self.files if f["name"] == wheel or f["name"] not in ours]


def is_pure(name: str) -> bool:
    """A wheel for any processor and Python 3 (no compiled code)."""
    return all(t.platform == "any" for t in parse_wheel_filename(name)[3])


# The maintainer's side ----------------------------------------------------------------------

def make_key(out: Path) -> tuple[Path, Path]:
    """A new Ed25519 key pair in `out`: release-key.pem (private, mode 600: keep it off the
    board) and release.pub (public: what each board holds). Refuses to overwrite a key."""
    out.mkdir(parents=True, exist_ok=True)
    private, public = out / "release-key.pem", out / "release.pub"
    for path in (private, public):
        if path.exists():
            raise UpdateError(f"{path} exists: a key is never overwritten (move it away first)")
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    fd = os.open(private, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    public.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


def read_private_key(path: Path) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except OSError as exc:
        raise UpdateError(f"cannot read the release key {path}: {exc.strerror}") from None
    except (ValueError, TypeError) as exc:
        raise UpdateError(f"{path}: expected an Ed25519 private key in PEM (made by "
                          f"`treeboard release-key`): {exc}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise UpdateError(f"{path}: expected an Ed25519 private key, not {type(key).__name__}")
    return key


def read_public_key(path: Path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except OSError as exc:
        raise UpdateError(f"cannot read the board's release key {path}: {exc.strerror} (put the "
                          "maintainer's release.pub there, or name it in update.public_key)") from None
    except ValueError as exc:
        raise UpdateError(f"{path}: expected an Ed25519 public key in PEM: {exc}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise UpdateError(f"{path}: expected an Ed25519 public key, not {type(key).__name__}")
    return key


def build_wheel(source: Path, out: Path, with_deps: bool = False, core: bool = False) -> list[Path]:
    """`pip wheel` of the project at `source` into `out` (with its dependencies' wheels too,
    for the machine this runs on); returns the wheels made. No build isolation: the
    setuptools of this environment builds it, with no download.

    Without `core`, the wheel leaves out the exact solver's compiled core (setup.py): a wheel
    for any board's processor (py3-none-any), whose board runs the pure-Python solver. With
    `core`, the platform wheel of this machine's processor and Python, core inside (refused
    when the core did not build: setup.py's extension is optional, and pip would make a
    platform wheel without it)."""
    argv = [sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "-w", str(out),
            str(source)]
    if not with_deps:
        argv.insert(4, "--no-deps")
    env = dict(os.environ)
    if core:
        env.pop("TREEBOARD_SOLVER_CORE", None)
    else:
        env["TREEBOARD_SOLVER_CORE"] = "python"
    before = set(out.glob("*.whl")) if out.is_dir() else set()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise UpdateError(f"`pip wheel {source}` failed: {done.stderr.strip()[-500:]}")
    made = sorted(set(out.glob("*.whl")) - before)
    if core:
        for wheel in made:
            if _ours(wheel.name) and not has_core(wheel):
                wheel.unlink()
                raise UpdateError(f"{wheel.name}: the solver's compiled core did not build on "
                                  "this machine (install build-essential and python3-dev: "
                                  "`./dev` does), so no platform wheel was made")
    return made


def has_core(wheel: Path) -> bool:
    """Whether a wheel holds the solver's compiled core (the project's one compiled module)."""
    try:
        with zipfile.ZipFile(wheel) as z:
            return any(n.endswith(EXTENSION_SUFFIXES) for n in z.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def _ours(name: str) -> bool:
    return name.split("-")[0].lower() == "treeboard"


def make_release(key_file: Path, out: Path, *, source: Path | None = None,
                 wheels: list[Path] | None = None, with_deps: bool = False,
                 with_core: bool = False) -> Manifest:
    """Sign a release into `out` (a new or empty folder): the `wheels` given (platform wheels
    built elsewhere, e.g. in `tools/arm64-check wheel`, dependencies' wheels), and the pure
    wheel built from `source` (the checkout this runs from by default) unless one is among
    them; with `with_core`, this machine's platform wheel built from `source` too."""
    key = read_private_key(key_file)   # (before building: a wrong key wastes no minute)
    if out.exists() and any(out.iterdir()):
        raise UpdateError(f"{out} is not empty: a release is made into a new folder")
    out.mkdir(parents=True, exist_ok=True)
    try:
        ours, found = _gather(out, source, wheels or [], with_deps, with_core)
    except BaseException:
        for left in out.iterdir():   # (a failed release leaves its folder empty for the next try)
            shutil.rmtree(left) if left.is_dir() else left.unlink()
        raise
    version = ours[0].name.split("-")[1]
    manifest = {"format": FORMAT, "project": "treeboard", "version": version,
                "wheel": ours[0].name, "wheels": [w.name for w in ours], "complete": with_deps,
                "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "files": [{"name": w.name, "sha256": _sha256(w), "size": w.stat().st_size}
                          for w in found]}
    raw = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    (out / MANIFEST).write_bytes(raw)
    (out / SIGNATURE).write_text(base64.b64encode(key.sign(raw)).decode() + "\n")
    return parse_manifest(raw, out / MANIFEST)


def _gather(out: Path, source: Path | None, wheels: list[Path], with_deps: bool,
            with_core: bool) -> tuple[list[Path], list[Path]]:
    """The wheels of a release copied or built into `out`: (the project's, checked, the pure
    one first; every wheel)."""
    for wheel in wheels:
        shutil.copyfile(wheel, out / Path(wheel).name)
    if not any(_ours(w.name) and is_pure(w.name) for w in out.glob("*.whl")):
        build_wheel(source or _checkout(), out, with_deps)
    if with_core:
        with tempfile.TemporaryDirectory() as tmp:
            for wheel in build_wheel(source or _checkout(), Path(tmp), core=True):
                if (out / wheel.name).exists():
                    raise UpdateError(f"{wheel.name} is given (--wheel) and built here "
                                      "(--with-core): give one or the other")
                shutil.move(wheel, out / wheel.name)
    found = sorted(out.glob("*.whl"))
    return _project_wheels(out, [w for w in found if _ours(w.name)]), found


def _project_wheels(out: Path, ours: list[Path]) -> list[Path]:
    """The project's wheels checked for a release, the pure one first: one pure wheel, one
    version, no two for the same tags, and a core in each platform wheel."""
    try:
        parsed = {w: parse_wheel_filename(w.name) for w in ours}
    except InvalidWheelFilename as exc:
        raise UpdateError(f"{out}: {exc}") from None
    pure = [w for w in ours if is_pure(w.name)]
    if len(pure) != 1:
        raise UpdateError(f"{out}: expected one pure treeboard wheel (py3-none-any: the one every "
                          f"board can install), found {len(pure)}: {[w.name for w in pure]}")
    versions = {str(p[1]) for p in parsed.values()}
    if len(versions) != 1:
        raise UpdateError(f"{out}: the treeboard wheels are of different versions "
                          f"({', '.join(sorted(versions))}): {[w.name for w in ours]}")
    tags = [p[3] for p in parsed.values()]
    for w in ours:
        if tags.count(parsed[w][3]) > 1:
            raise UpdateError(f"{out}: two treeboard wheels for the same platform: {w.name}")
        if not is_pure(w.name) and not has_core(w):
            raise UpdateError(f"{w.name}: a platform wheel without the solver's compiled core "
                              "(setup.py's compiled extension, no .so in it): expected the core "
                              "in it; refused")
    return pure + sorted(w for w in ours if w not in pure)


def _checkout() -> Path:
    here = Path(__file__).resolve().parents[2]
    if not (here / "pyproject.toml").is_file():
        raise UpdateError(f"{here} is no checkout of treeboard (no pyproject.toml): run "
                          "`treeboard release` from a clone, or give --source or --wheel")
    return here


# The board's side ---------------------------------------------------------------------------

def fetch(source: str, into: Path, public_key: Ed25519PublicKey,
          tags: list[Tag] | None = None) -> tuple[Manifest, str]:
    """Copy a release from a folder or an http(s) URL into the new folder `into`, checking its
    signature and every file as copied; returns the manifest and the project's wheel for
    these tags (this interpreter's by default), the only one of its wheels copied.
    ReleaseRefused (nothing used) on any fault."""
    into.mkdir(parents=True)
    raw = _get(source, MANIFEST, into, MAX_SMALL, required="the manifest")
    _get(source, SIGNATURE, into, MAX_SMALL,
         required="its signature: an unsigned release is refused")
    check_signature(raw, (into / SIGNATURE).read_bytes(), public_key, _where(source, SIGNATURE))
    manifest = parse_manifest(raw, _where(source, MANIFEST))
    tags = list(sys_tags()) if tags is None else tags
    wheel = manifest.pick(tags)
    if wheel is None:
        raise ReleaseRefused(f"{_where(source, MANIFEST)}: no wheel of this release fits this "
                             f"board's Python and processor (its tags: {tags[0]} ... {tags[-1]}); "
                             f"the release has {', '.join(manifest.wheels)}; refused")
    for entry in manifest.needed(wheel):
        _get(source, entry["name"], into, MAX_WHEEL, required="a file the manifest names")
        got = into / entry["name"]
        if got.stat().st_size != entry["size"] or _sha256(got) != entry["sha256"]:
            raise ReleaseRefused(f"{_where(source, entry['name'])}: its SHA-256 is not the "
                                 "signed manifest's: the release was tampered with, refused")
    return manifest, wheel


def check_signature(raw: bytes, signature: bytes, key: Ed25519PublicKey, where: str) -> None:
    try:
        key.verify(base64.b64decode(signature.strip(), validate=True), raw)
    except (InvalidSignature, ValueError):
        raise ReleaseRefused(f"{where}: the signature does not match the manifest: tampered with, "
                             "or signed with another key than this board's; refused") from None


def parse_manifest(raw: bytes, where) -> Manifest:
    try:
        data = json.loads(raw)
        files = tuple(data["files"])
        version, wheel = str(data["version"]), str(data["wheel"])
        wheels = tuple(str(w) for w in data.get("wheels", [wheel]))
        Version(version)
        ok = data.get("format") == FORMAT and data.get("project") == "treeboard" and all(
            isinstance(f.get("name"), str) and _plain_name(f["name"]) and f["name"].endswith(".whl")
            and isinstance(f.get("sha256"), str) and isinstance(f.get("size"), int) for f in files)
        names = [f["name"] for f in files]
        ok = ok and wheel in wheels and all(
            w in names and parse_wheel_filename(w)[0] == "treeboard"
            and parse_wheel_filename(w)[1] == Version(version) for w in wheels)
    except (ValueError, KeyError, TypeError, AttributeError, InvalidVersion):
        ok = False   # (InvalidWheelFilename is a ValueError)
    if not ok:
        raise ReleaseRefused(f"{where}: expected a treeboard release manifest (format {FORMAT}: "
                             "version, wheel, wheels of that version, files with name, sha256, size)")
    return Manifest(version, wheel, bool(data.get("complete")), files, raw, wheels)


def check_newer(manifest: Manifest, installed: str | None, where: str) -> None:
    if installed is not None and Version(manifest.version) <= Version(installed):
        raise ReleaseRefused(f"{where}: version {manifest.version} is not newer than the "
                             f"installed {installed}; refused")


def _plain_name(name: str) -> bool:
    return name == Path(name).name and not name.startswith(".")


def _where(source: str, name: str) -> str:
    return source.rstrip("/") + "/" + name


def _get(source: str, name: str, into: Path, limit: int, required: str) -> bytes | None:
    """One file of the release, into `into/name` (returned too when small)."""
    target = into / name
    scheme = urllib.parse.urlparse(source).scheme
    try:
        if scheme in ("http", "https"):
            url = urllib.parse.urljoin(source.rstrip("/") + "/", urllib.parse.quote(name))
            with urllib.request.urlopen(url, timeout=60) as response, open(target, "wb") as f:
                _copy_bounded(response, f, limit, url)
        else:
            with open(Path(source) / name, "rb") as src, open(target, "wb") as f:
                _copy_bounded(src, f, limit, str(Path(source) / name))
    except FileNotFoundError:
        raise ReleaseRefused(f"{_where(source, name)} is missing ({required})") from None
    except urllib.error.HTTPError as exc:
        raise ReleaseRefused(f"{_where(source, name)}: {exc.code} {exc.reason} ({required})") from None
    except (OSError, urllib.error.URLError) as exc:
        raise UpdateError(f"cannot read {_where(source, name)}: {exc}") from None
    return target.read_bytes() if limit <= MAX_SMALL else None


def _copy_bounded(src, dst, limit: int, where: str) -> None:
    total = 0
    while chunk := src.read(1 << 16):
        total += len(chunk)
        if total > limit:
            raise ReleaseRefused(f"{where}: larger than {limit} bytes; no file of a release is")
        dst.write(chunk)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 16):
            digest.update(chunk)
    return digest.hexdigest()


def scratch(parent: Path) -> Path:
    """A new private folder under `parent` for a release being checked."""
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".incoming-", dir=parent)) / "release"
