"""The command line's messages a person can act on: --version, --game, another game's option
named with its layout, one "expected" and the value as typed for a bad computer level."""

from __future__ import annotations

import pytest

from board_driver.cli import main


def err_of(capsys, *argv) -> tuple[int, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = exc.code
    return status, capsys.readouterr()


def test_version_prints_the_package_version(capsys):
    status, out = err_of(capsys, "--version")
    assert status == 0 and out.out.startswith("treeboard 0.")


@pytest.mark.parametrize("where", ["command line", "config"])
def test_a_bad_computer_level_says_expected_once_with_the_seat_as_typed(capsys, tmp_path, where):
    if where == "config":
        config = tmp_path / "board.toml"
        config.write_text('players = ["human", "computer:medum"]\n')
        status, out = err_of(capsys, "sim", "--config", str(config))
        assert f"{config}: players: expected a computer level: one of easy" in out.err
    else:
        status, out = err_of(capsys, "sim", "--players", "human", "computer:medum")
        assert "--players: expected a computer level: one of easy" in out.err
    assert status == 2 and "expected expected" not in out.err
    assert out.err.rstrip().endswith("got 'computer:medum'")


def test_another_games_option_names_that_games_layout(capsys):
    status, out = err_of(capsys, "sim", "--cubes", "3")
    assert status == 2 and "treeblox takes them: --layout treeblox-adc" in out.err


def test_game_picks_its_layout_or_names_its_layouts(capsys):
    from board_driver.cli.board import layout_for_game
    from board_driver.config import ConfigError

    assert layout_for_game("fangqi", None).startswith("fangqi-")
    with pytest.raises(ConfigError, match="a layout of fangqi: fangqi-"):
        layout_for_game("fangqi", "arbos-8x8-matrix")
    status, out = err_of(capsys, "sim", "--game", "chess")
    assert status == 2 and "--game: expected one of tree-planting" in out.err
