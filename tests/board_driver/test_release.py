"""A release read from a folder or over HTTP (board_driver/update/release.py): what is checked,
in which order, and that only the files the signed manifest names are used. In-process, with
a stand-in wheel (the bytes are never installed here; test_update.py installs real ones)."""

from __future__ import annotations

import functools
import http.server
import threading

import pytest

from board_driver.update import ReleaseRefused, UpdateError, release


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
    got = release.fetch(served, tmp_path / "in", key)
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
    from pathlib import Path

    root = Path(release.__file__).resolve().parents[2]
    (wheel,) = release.build_wheel(root, tmp_path)
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
