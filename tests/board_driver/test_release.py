"""A release read from a folder or over HTTP (board_driver/update/release.py): what is checked,
in which order, and that only the files the signed manifest names are used. In-process, with
a stand-in wheel (the bytes are never installed here; test_update.py installs real ones)."""

from __future__ import annotations

import functools
import http.server
import json
import threading
import zipfile
from pathlib import Path

import pytest
from packaging.tags import compatible_tags, cpython_tags, sys_tags
from packaging.utils import parse_wheel_filename

from board_driver.update import ReleaseRefused, UpdateError, release
from tests.games.test_ai_tree_planting_core import can_compile


@pytest.fixture
def made(tmp_path):
    private, public = release.make_key(tmp_path / "keys")
    wheel = tmp_path / "treeboard-1.2.0-py3-none-any.whl"
    wheel.write_bytes(b"PK stand-in" * 1000)
    out = tmp_path / "rel"
    manifest = release.make_release(private, out, wheels=[wheel])
    return out, release.read_public_key(public), manifest


@pytest.fixture
def served(made):
    out = made[0]
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join()


def test_a_release_over_http_is_copied_and_checked(made, served, tmp_path):
    out, key, manifest = made
    got, wheel = release.fetch(served, tmp_path / "in", key)
    assert wheel == got.wheel == "treeboard-1.2.0-py3-none-any.whl"
    assert got.version == "1.2.0" and got.names == ["treeboard-1.2.0-py3-none-any.whl"]
    assert (tmp_path / "in" / got.wheel).read_bytes() == (out / got.wheel).read_bytes()
    # A file served beside the release, not in the manifest, is never fetched.
    (out / "evil-1.0-py3-none-any.whl").write_bytes(b"x")
    release.fetch(served, tmp_path / "again", key)
    assert not (tmp_path / "again" / "evil-1.0-py3-none-any.whl").exists()


def test_tampered_unsigned_and_foreign_releases_are_refused_over_http(made, served, tmp_path):
    out, key, _ = made
    wheel = next(out.glob("*.whl"))
    wheel.write_bytes(wheel.read_bytes()[:-1] + b"!")
    with pytest.raises(ReleaseRefused, match="its SHA-256 is not the signed manifest's"):
        release.fetch(served, tmp_path / "a", key)
    (out / release.SIGNATURE).unlink()
    with pytest.raises(ReleaseRefused, match="404 .* an unsigned release is refused"):
        release.fetch(served, tmp_path / "b", key)


def test_a_manifest_changed_after_signing_is_refused(made, tmp_path):
    out, key, _ = made
    text = (out / release.MANIFEST).read_text().replace("1.2.0", "9.9.9")
    (out / release.MANIFEST).write_text(text)
    with pytest.raises(ReleaseRefused, match="the signature does not match the manifest"):
        release.fetch(str(out), tmp_path / "in", key)


def test_the_maintainers_key_is_never_overwritten_and_a_wrong_key_file_is_named(tmp_path):
    release.make_key(tmp_path)
    with pytest.raises(UpdateError, match="release-key.pem exists"):
        release.make_key(tmp_path)
    (tmp_path / "not-a-key.pem").write_text("hello")
    with pytest.raises(UpdateError, match="not-a-key.pem: expected an Ed25519 private key"):
        release.read_private_key(tmp_path / "not-a-key.pem")
    with pytest.raises(UpdateError, match="not-a-key.pem: expected an Ed25519 public key"):
        release.read_public_key(tmp_path / "not-a-key.pem")


def test_a_release_wheel_fits_every_boards_processor(tmp_path):
    # A release is made on one machine and installed on Pis of other processors: its wheel is
    # built without the exact solver's compiled core (setup.py), which only fits the machine
    # that compiled it (a linux_x86_64 wheel that no Pi would install).
    root = Path(release.__file__).resolve().parents[2]
    (wheel,) = release.build_wheel(root, tmp_path)
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    assert not release.has_core(wheel)


@pytest.mark.skipif(not can_compile(), reason="no C compiler or Python headers")
def test_with_core_a_release_adds_this_machines_platform_wheel_with_the_core(tmp_path):
    private, _ = release.make_key(tmp_path / "keys")
    root = Path(release.__file__).resolve().parents[2]
    manifest = release.make_release(private, tmp_path / "rel", source=root, with_core=True)
    pure, platform = manifest.wheels
    assert pure == manifest.wheel and release.is_pure(pure)
    assert release.has_core(tmp_path / "rel" / platform)
    # This machine's interpreter picks it: its tags are among this Python's own.
    assert manifest.pick() == platform and set(parse_wheel_filename(platform)[3]) & set(sys_tags())
    # The same platform wheel given and built: which one to sign is not guessed.
    with pytest.raises(UpdateError, match=r"\.whl is given \(--wheel\) and built here"):
        release.make_release(private, tmp_path / "again", source=root, with_core=True,
                             wheels=[tmp_path / "rel" / platform])


# Which of a release's wheels a board installs ------------------------------------------------

def _tags(platforms: list[str], python=(3, 11)) -> list:
    """The tags, most specific first, of a CPython `python` on a machine whose platform tags
    are `platforms` (as packaging.tags.sys_tags() makes them on that machine)."""
    abi = f"cp{python[0]}{python[1]}"
    return [*cpython_tags(python, [abi], platforms), *compatible_tags(python, abi, platforms)]


#: Pi OS 64-bit (glibc 2.36), and 32-bit on a 64-bit kernel (packaging's armv8l, then armv7l).
AARCH64 = [f"manylinux_2_{m}_aarch64" for m in range(36, 16, -1)] + ["manylinux2014_aarch64",
                                                                     "linux_aarch64"]
ARMV8L = ["linux_armv8l", "linux_armv7l"]


def _platform_wheel(folder: Path, tag: str, core: bool = True) -> Path:
    """A stand-in platform wheel (a zip holding the core's file, as a real one does)."""
    wheel = folder / f"treeboard-1.2.0-{tag}.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        if core:
            z.writestr("games/ai/tree_planting_core.cpython-311-aarch64-linux-gnu.so", tag * 100)
        z.writestr("treeboard-1.2.0.dist-info/WHEEL", f"Tag: {tag}\n")
    return wheel


@pytest.fixture
def platforms(tmp_path):
    """A release of the pure wheel and platform wheels for a 64-bit Pi, a 32-bit one, and a
    manylinux x86_64 machine."""
    private, public = release.make_key(tmp_path / "keys")
    given = tmp_path / "given"
    given.mkdir()
    pure = given / "treeboard-1.2.0-py3-none-any.whl"
    pure.write_bytes(b"PK stand-in")
    wheels = [pure] + [_platform_wheel(given, t) for t in (
        "cp311-cp311-linux_aarch64", "cp311-cp311-linux_armv7l",
        "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64")]
    release.make_release(private, tmp_path / "rel", wheels=wheels)
    return tmp_path / "rel", release.read_public_key(public)


@pytest.mark.parametrize("board, python, expected", [
    (AARCH64, (3, 11), "cp311-cp311-linux_aarch64"),
    (ARMV8L, (3, 11), "cp311-cp311-linux_armv7l"),
    (["manylinux_2_36_x86_64", "manylinux_2_17_x86_64", "linux_x86_64"], (3, 11),
     "cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64"),
    (AARCH64, (3, 13), "py3-none-any"),            # a newer Python: no cp311 wheel fits it
    (["linux_riscv64"], (3, 11), "py3-none-any"),  # a processor no wheel is built for
])
def test_a_board_picks_the_most_specific_wheel_its_interpreter_supports(platforms, tmp_path,
                                                                          board, python, expected):
    rel, key = platforms
    manifest, wheel = release.fetch(str(rel), tmp_path / "in", key, _tags(board, python))
    assert wheel == f"treeboard-1.2.0-{expected}.whl"
    # Only that one of the project's wheels is copied to the board.
    assert sorted(p.name for p in (tmp_path / "in").glob("*.whl")) == [wheel]
    assert (tmp_path / "in" / wheel).read_bytes() == (rel / wheel).read_bytes()


def test_a_tampered_platform_wheel_is_refused_where_it_would_be_installed(platforms, tmp_path):
    rel, key = platforms
    arm = rel / "treeboard-1.2.0-cp311-cp311-linux_aarch64.whl"
    arm.write_bytes(arm.read_bytes() + b"!")
    with pytest.raises(ReleaseRefused, match="linux_aarch64.whl: its SHA-256 is not the signed"):
        release.fetch(str(rel), tmp_path / "a", key, _tags(AARCH64))
    # A board of another processor never copies it, nor uses it.
    _, wheel = release.fetch(str(rel), tmp_path / "b", key, _tags(ARMV8L))
    assert wheel.endswith("linux_armv7l.whl")


def test_a_release_needs_its_pure_wheel_one_version_and_a_core_in_each_platform_wheel(tmp_path):
    private, _ = release.make_key(tmp_path / "keys")
    given = tmp_path / "given"
    given.mkdir()
    pure = given / "treeboard-1.2.0-py3-none-any.whl"
    pure.write_bytes(b"PK stand-in")
    hollow = _platform_wheel(given, "cp311-cp311-linux_aarch64", core=False)
    with pytest.raises(UpdateError, match="linux_aarch64.whl: a platform wheel without the "
                                          "solver's compiled core"):
        release.make_release(private, tmp_path / "a", wheels=[pure, hollow])
    assert not any((tmp_path / "a").iterdir())   # (left empty: the same folder can be tried again)
    other = given / "treeboard-1.3.0-py3-none-any.whl"
    other.write_bytes(b"PK")
    with pytest.raises(UpdateError, match="expected one pure treeboard wheel .* found 2"):
        release.make_release(private, tmp_path / "b", wheels=[pure, other])
    arm = _platform_wheel(tmp_path, "cp311-cp311-linux_aarch64")
    with pytest.raises(UpdateError, match=r"of different versions \(1.2.0, 1.3.0\)"):
        release.make_release(private, tmp_path / "c", wheels=[other, arm])


def test_a_manifest_before_platform_wheels_still_reads_and_installs_its_one_wheel(tmp_path):
    raw = json.dumps({"format": 1, "project": "treeboard", "version": "0.9.0", "complete": False,
                      "wheel": "treeboard-0.9.0-py3-none-any.whl",
                      "files": [{"name": "treeboard-0.9.0-py3-none-any.whl", "sha256": "0" * 64,
                                 "size": 1}]}).encode()
    manifest = release.parse_manifest(raw, "old/release.json")
    assert manifest.wheels == (manifest.wheel,) and manifest.pick() == manifest.wheel
    # A manifest whose wheels are not among its files, or of another version, is refused.
    for wheels in (["treeboard-0.9.0-cp311-cp311-linux_aarch64.whl"],
                   ["treeboard-0.9.0-py3-none-any.whl", "treeboard-0.8.0-py3-none-any.whl"]):
        bad = json.loads(raw) | {"wheels": wheels}
        bad["files"] += [{"name": w, "sha256": "0" * 64, "size": 1} for w in wheels[1:]]
        with pytest.raises(ReleaseRefused, match="old/release.json: expected a treeboard release"):
            release.parse_manifest(json.dumps(bad).encode(), "old/release.json")
