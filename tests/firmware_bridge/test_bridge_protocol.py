"""The shared codec: CRC, COBS, every message, and a decoder that never raises."""

from __future__ import annotations

import ast
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge.firmware import protocol as p
from hardware.base import PRESENT

FIRMWARE = Path(p.__file__).parent


def test_crc32_is_zlibs_and_the_pure_python_one_agrees():
    assert p.crc32(b"123456789") == p.crc32_table(b"123456789") == 0xCBF43926
    assert p.crc32(b"") == p.crc32_table(b"") == 0
    data = bytes(range(256)) * 3
    assert p.crc32_table(data) == zlib.crc32(data)


def test_present_matches_the_hardware_layer():
    assert p.PRESENT == PRESENT


@given(st.binary(max_size=2000))
def test_cobs_round_trips_and_leaves_no_zero(data):
    encoded = p.cobs_encode(data)
    assert 0 not in encoded
    assert len(encoded) <= len(data) + len(data) // 254 + 1
    assert p.cobs_decode(encoded) == data


@pytest.mark.parametrize("n", [253, 254, 255, 508, 509])
def test_cobs_long_runs_without_zeros(n):
    data = bytes((i % 255) + 1 for i in range(n))
    assert p.cobs_decode(p.cobs_encode(data)) == data


def one(frame):
    [msg] = p.FrameDecoder().feed(frame)
    assert isinstance(msg, p.Message), msg
    return msg


def test_every_message_round_trips():
    enc = p.Encoder()
    hello = one(enc.hello(20, 20, 400, 0xBEEF, ["leaf", "seed"]))
    assert (hello.type, hello.seq, hello.version, hello.rows, hello.cols, hello.leds,
            hello.boot_id, hello.kinds) == (p.HELLO, 0, p.VERSION, 20, 20, 400, 0xBEEF, ["leaf", "seed"])
    codes = bytes([0, 1, 2, 0] * 100)
    assert one(enc.snapshot(codes)).codes == codes
    change = one(enc.change(399, 1, 0xDEADBEEF))
    assert (change.channel, change.code, change.sensor_crc, change.seq) == (399, 1, 0xDEADBEEF, 2)
    ack = one(enc.ack(7, 0x12345678))
    assert (ack.acked, ack.led_crc) == (7, 0x12345678)
    assert one(enc.host_hello()).version == p.VERSION
    rgb = bytes(range(256)) * 4 + bytes(176)
    assert one(enc.led_frame(rgb[:1200])).rgb == rgb[:1200]
    assert one(enc.led_partial([(0, 0, 0, 0), (399, 255, 1, 2)])).updates == [(0, 0, 0, 0), (399, 255, 1, 2)]
    assert one(enc.snapshot_request()).type == p.SNAPSHOT_REQUEST
    hb = one(enc.heartbeat(0xAAAAAAAA, 0x55555555))
    assert (hb.sensor_crc, hb.led_crc) == (0xAAAAAAAA, 0x55555555)
    assert one(enc.heartbeat()).sensor_crc is None
    err = one(enc.error(p.ERR_BAD_FRAME, 9, "CRC mismatch"))
    assert (err.code, err.about, err.text) == (p.ERR_BAD_FRAME, 9, "CRC mismatch")


def test_sequence_numbers_wrap():
    enc = p.Encoder()
    seqs = [one(enc.heartbeat()).seq for _ in range(258)]
    assert seqs[:2] == [0, 1] and seqs[255:] == [255, 0, 1]


def test_hello_of_another_version_still_tells_its_version():
    msg = one(p.Encoder().hello(5, 8, 40, 1, version=p.VERSION + 1))
    assert msg.version == p.VERSION + 1 and not hasattr(msg, "rows")


def test_crc16_of_protocol_1_is_ccitt_false_and_its_frames_are_recognised():
    assert p.crc16(b"123456789") == 0x29B1
    body = bytes([p.HELLO, 0, 1, 5, 8, 0, 40, 0, 1, 0])
    crc = p.crc16(body)
    [item] = p.FrameDecoder().feed(b"\x00" + p.cobs_encode(body + bytes([crc >> 8, crc & 0xFF])) + b"\x00")
    assert isinstance(item, p.LegacyFrame)


def test_a_flipped_bit_is_a_protocol_error_and_the_next_frame_survives():
    enc = p.Encoder()
    bad = bytearray(enc.change(3, 1, 0))
    bad[3] ^= 0x10
    out = p.FrameDecoder().feed(bytes(bad) + enc.change(4, 1, 0))
    assert isinstance(out[0], p.ProtocolError)
    assert out[1].channel == 4


def test_garbage_before_a_frame_costs_nothing_but_itself():
    out = p.FrameDecoder().feed(b"MPY: soft reboot\r\n\x01\x02" + p.Encoder().change(4, 1, 0))
    assert [type(x) for x in out] == [p.ProtocolError, p.Message]


def test_an_endless_frame_is_rejected_once_and_the_stream_recovers():
    dec = p.FrameDecoder()
    assert dec.feed(b"\x01" * (p.MAX_ENCODED * 3)) == []
    out = dec.feed(b"\x00" + p.Encoder().change(4, 1, 0))
    assert isinstance(out[0], p.ProtocolError) and out[1].channel == 4


@pytest.mark.parametrize("body", [
    b"", b"\x01", bytes([p.HELLO, 0]), bytes([p.HELLO, 0, p.VERSION, 5, 8, 0, 40, 0, 1, 3, 9]),
    bytes([p.CHANGE, 0, 0, 1]), bytes([p.LED_FRAME, 0, 1, 2]), bytes([p.LED_PARTIAL, 0, 1]),
    bytes([p.HEARTBEAT, 0, 1]), bytes([p.ERROR, 0, 1]), bytes([p.ERROR, 0, 1, 2, 0xFF]),
    bytes([0x7F, 0]), bytes([p.SNAPSHOT_REQUEST, 0, 1]),
])
def test_malformed_payloads_are_protocol_errors(body):
    with pytest.raises(p.ProtocolError):
        p.decode_body(body)


def _crc_framed(body: bytes) -> bytes:
    return b"\x00" + p.cobs_encode(body + p.crc32(body).to_bytes(4, "big")) + b"\x00"


@settings(max_examples=400)
@given(st.binary(max_size=600))
def test_fuzz_any_bytes_decode_to_messages_or_protocol_errors(data):
    out = p.FrameDecoder().feed(data)
    assert all(isinstance(x, (p.Message, p.ProtocolError)) for x in out)


@settings(max_examples=400)
@given(st.binary(max_size=300))
def test_fuzz_any_correctly_framed_body_is_a_message_or_a_protocol_error(body):
    # Past the CRC: the payload parsers see arbitrary bytes, and still never raise otherwise.
    out = p.FrameDecoder().feed(_crc_framed(body))
    assert len(out) <= 1
    assert all(isinstance(x, (p.Message, p.ProtocolError)) for x in out)


@settings(max_examples=200)
@given(st.lists(st.tuples(st.binary(max_size=40), st.integers(0, 399), st.integers(0, 2))),
       st.lists(st.integers(1, 50)))
def test_fuzz_frames_after_garbage_are_all_recovered_in_any_chunking(pieces, cuts):
    enc = p.Encoder()
    stream = bytearray()
    sent = []
    for garbage, channel, code in pieces:
        stream += garbage
        stream += enc.change(channel, code, 0)
        sent.append((channel, code))
    dec = p.FrameDecoder()
    out = []
    i = 0
    for cut in cuts + [len(stream)]:
        out += dec.feed(bytes(stream[i:i + cut]))
        i += cut
    got = [(m.channel, m.code) for m in out if isinstance(m, p.Message)]
    assert got == sent


# --- what runs on the microcontroller uses only what MicroPython has

# (hashlib: sha256 is in the rp2 port's build, as in the unix port's; main.py hashes its files)
MICROPYTHON_MODULES = {"machine", "micropython", "neopixel", "os", "select", "sys", "time", "binascii",
                       "hashlib", "protocol", "controller", "shiftreg"}
NOT_ON_MICROPYTHON = {"dataclass", "dataclasses", "typing", "struct", "enum", "abc", "annotations"}
#: bytes.hex(sep), int.from_bytes(signed=...): missing or partial there; the codec shifts bytes.
METHODS_NOT_ON_MICROPYTHON = {"hex", "from_bytes", "to_bytes"}


@pytest.mark.parametrize("name", ["protocol.py", "controller.py", "shiftreg.py", "boot.py", "main.py"])
def test_firmware_modules_use_only_micropython(name):
    tree = ast.parse((FIRMWARE / name).read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            assert {a.name for a in node.names} <= MICROPYTHON_MODULES, ast.dump(node)
        if isinstance(node, ast.ImportFrom) and node.module:
            assert node.module in MICROPYTHON_MODULES, ast.dump(node)
        if isinstance(node, ast.Attribute):
            assert node.attr not in NOT_ON_MICROPYTHON | METHODS_NOT_ON_MICROPYTHON, ast.dump(node)
        if isinstance(node, ast.Name):
            assert node.id not in NOT_ON_MICROPYTHON, ast.dump(node)
        assert not isinstance(node, (ast.AnnAssign, ast.Match)), ast.dump(node)
        if isinstance(node, (ast.FunctionDef, ast.arg)):
            assert getattr(node, "returns", None) is None and getattr(node, "annotation", None) is None
