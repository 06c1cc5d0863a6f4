"""A release: wheels and a signed manifest, in one folder (or at one URL).

    release.json       the manifest: {"format": 1, "project": "treeboard", "version": "0.2.0",
                       "wheel": "treeboard-0.2.0-py3-none-any.whl", "complete": false,
                       "files": [{"name": ..., "sha256": ..., "size": ...}, ...]}
    release.json.sig   the Ed25519 signature of release.json's exact bytes, in base64
    *.whl              the files the manifest names: the project's wheel, and with
                       `treeboard release --with-deps` every dependency's ("complete": true,
                       installable with no index)

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
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from packaging.version import InvalidVersion, Version

from board_driver.update import ReleaseRefused, UpdateError

MANIFEST = "release.json"
SIGNATURE = "release.json.sig"
FORMAT = 1
#: A manifest or a signature larger than this is no release of ours (read from a URL).
MAX_SMALL = 1 << 20
#: And a wheel larger than this (the project's is under 2 MB; cryptography's about 4).
MAX_WHEEL = 200 << 20


@dataclass(frozen=True)
class Manifest:
    version: str
    wheel: str
    complete: bool
    files: tuple[dict, ...]
    raw: bytes

    @property
    def names(self) -> list[str]:
        return [f["name"] for f in self.files]


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


def build_wheel(source: Path, out: Path, with_deps: bool = False) -> list[Path]:
    """`pip wheel` of the project at `source` into `out` (with its dependencies' wheels too,
    for the machine this runs on); returns the wheels made. No build isolation: the
    setuptools of this environment builds it, with no download."""
    argv = [sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "-w", str(out),
            str(source)]
    if not with_deps:
        argv.insert(4, "--no-deps")
    # Without the exact solver's compiled core (setup.py): a wheel for any board's processor,
    # not only this machine's; such a board runs the pure-Python solver.
    env = {**os.environ, "TREEBOARD_SOLVER_CORE": "python"}
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise UpdateError(f"`pip wheel {source}` failed: {done.stderr.strip()[-500:]}")
    return sorted(out.glob("*.whl"))


def make_release(key_file: Path, out: Path, *, source: Path | None = None,
                 wheels: list[Path] | None = None, with_deps: bool = False) -> Manifest:
    """Sign a release into `out` (a new or empty folder): the wheel built from `source` (the
    checkout this runs from by default), or the `wheels` given (the project's among them)."""
    key = read_private_key(key_file)   # (before building: a wrong key wastes no minute)
    if out.exists() and any(out.iterdir()):
        raise UpdateError(f"{out} is not empty: a release is made into a new folder")
    out.mkdir(parents=True, exist_ok=True)
    if wheels:
        for wheel in wheels:
            shutil.copyfile(wheel, out / Path(wheel).name)
    else:
        source = source or _checkout()
        build_wheel(source, out, with_deps)
    found = sorted(out.glob("*.whl"))
    ours = [w for w in found if w.name.split("-")[0].lower() == "treeboard"]
    if len(ours) != 1:
        raise UpdateError(f"{out}: expected one treeboard wheel, found {len(ours)}")
    version = ours[0].name.split("-")[1]
    manifest = {"format": FORMAT, "project": "treeboard", "version": version,
                "wheel": ours[0].name, "complete": with_deps,
                "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "files": [{"name": w.name, "sha256": _sha256(w), "size": w.stat().st_size}
                          for w in found]}
    raw = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    (out / MANIFEST).write_bytes(raw)
    (out / SIGNATURE).write_text(base64.b64encode(key.sign(raw)).decode() + "\n")
    return parse_manifest(raw, out / MANIFEST)


def _checkout() -> Path:
    here = Path(__file__).resolve().parents[2]
    if not (here / "pyproject.toml").is_file():
        raise UpdateError(f"{here} is no checkout of treeboard (no pyproject.toml): run "
                          "`treeboard release` from a clone, or give --source or --wheel")
    return here


# The board's side ---------------------------------------------------------------------------

def fetch(source: str, into: Path, public_key: Ed25519PublicKey) -> Manifest:
    """Copy a release from a folder or an http(s) URL into the new folder `into`, checking its
    signature and every file as copied. ReleaseRefused (nothing used) on any fault."""
    into.mkdir(parents=True)
    raw = _get(source, MANIFEST, into, MAX_SMALL, required="the manifest")
    _get(source, SIGNATURE, into, MAX_SMALL,
         required="its signature: an unsigned release is refused")
    check_signature(raw, (into / SIGNATURE).read_bytes(), public_key, _where(source, SIGNATURE))
    manifest = parse_manifest(raw, _where(source, MANIFEST))
    for entry in manifest.files:
        _get(source, entry["name"], into, MAX_WHEEL, required="a file the manifest names")
        got = into / entry["name"]
        if got.stat().st_size != entry["size"] or _sha256(got) != entry["sha256"]:
            raise ReleaseRefused(f"{_where(source, entry['name'])}: its SHA-256 is not the "
                                 "signed manifest's: the release was tampered with, refused")
    return manifest


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
        Version(version)
        ok = data.get("format") == FORMAT and data.get("project") == "treeboard" and all(
            isinstance(f.get("name"), str) and _plain_name(f["name"]) and f["name"].endswith(".whl")
            and isinstance(f.get("sha256"), str) and isinstance(f.get("size"), int) for f in files)
        ok = ok and wheel in [f["name"] for f in files]
    except (ValueError, KeyError, TypeError, AttributeError, InvalidVersion):
        ok = False
    if not ok:
        raise ReleaseRefused(f"{where}: expected a treeboard release manifest (format {FORMAT}: "
                             "version, wheel, files with name, sha256, size)")
    return Manifest(version, wheel, bool(data.get("complete")), files, raw)


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
