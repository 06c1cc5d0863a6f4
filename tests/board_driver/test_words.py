"""The family's language: every shipped catalog complete, the sim and a trace in Chinese, the
narrator's sentences (what the voice says) and the site names as a person says them."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from board_driver.cli.sim import run_sim
from board_driver.config import Voice, load_config, parse_config, sim_config
from board_driver.referee.tracer import Tracer
from board_driver.views import words

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import catalogs  # noqa: E402  (tools/catalogs.py: the Babel script)


def test_every_message_has_a_translation_in_every_shipped_catalog():
    # Extracted afresh from the source: a new tr("...") without its translation fails here.
    assert catalogs.problems() == []
    assert set(catalogs.languages()) >= {"en", "zh"}
    assert set(words.languages()) >= {"en", "zh"}


def test_the_check_finds_a_missing_translation_a_broken_placeholder_and_a_stale_mo(
        tmp_path, monkeypatch):
    for f in catalogs.LOCALE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    monkeypatch.setattr(catalogs, "LOCALE", tmp_path)
    po = tmp_path / "zh.po"
    text = po.read_text(encoding="utf-8")
    text = text.replace('msgstr "植树棋"', 'msgstr ""')
    text = text.replace('msgstr "比分{a}比{b}"', 'msgstr "比分{a}比{c}"')
    po.write_text(text, encoding="utf-8")
    found = "\n".join(catalogs.problems())
    assert "'Tree Planting' has no translation" in found
    assert "'score {a} to {b}': the translation's placeholders ['a', 'c']" in found
    assert "zh.mo: not compiled from zh.po" in found


def test_language_codes_as_browsers_and_configs_write_them():
    assert words.normalize("zh-CN") == "zh" and words.normalize("zh_Hans.UTF-8") == "zh"
    assert words.normalize("EN-gb") == "en" and words.normalize("fr") is None
    with pytest.raises(ValueError, match="no catalog for language 'fr'; expected one of en, zh"):
        words.translation("fr")


def test_the_config_language_and_voice_table(tmp_path):
    cfg = parse_config({"language": "zh", "voice": {
        "enabled": True, "rate": 140, "volume": 90, "device": "plughw:CARD=Headphones",
        "quiet_hours": "21:30-07:00", "repeat_moves": 5, "voice": "cmn"}})
    assert cfg.language == "zh"
    v = cfg.voice
    assert (v.enabled, v.rate, v.volume, v.device, v.repeat_moves, v.voice) == (
        True, 140, 90, "plughw:CARD=Headphones", 5, "cmn")
    assert v.quiet_at(22 * 60) and v.quiet_at(6 * 60 + 59) and not v.quiet_at(7 * 60)
    assert not Voice().quiet_at(3 * 60)
    bad = tmp_path / "c.toml"
    bad.write_text('[voice]\nquiet_hours = "late"\n')
    with pytest.raises(ValueError, match=r'c.toml: voice.quiet_hours: expected "HH:MM-HH:MM"'):
        load_config(bad)


def sim(tmp_path, *lines, language="zh", layout=None):
    config = sim_config(journal=str(tmp_path / "j.sqlite"), language=language,
                        **({"layout": layout} if layout else {}))
    out = io.StringIO()
    try:
        assert run_sim(config, stdin=io.StringIO("".join(f"{x}\n" for x in lines)), out=out) == 0
    finally:
        words.use("en")
    return out.getvalue()


def test_the_sim_in_chinese(tmp_path):
    out = sim(tmp_path, "place h0.0", "place h0.0", "lift h1.0", "place v0.0", "lift v0.0",
              "repeat", "clear", "quit")
    assert "植树棋：槽记作 h 行.列" in out              # the game's help
    assert "操作：place 位置 [种类]" in out             # the sim's actions
    assert "第 1 步：h0.0（轮到二号玩家）" in out
    assert "不是一步棋：{site} 上已经有一个小棍".format(site="h0.0") in out
    assert "不是一步棋：h1.0 上没有可拿的棋子" in out
    assert "悔棋：v0.0" in out
    assert "比分0比0，轮到二号玩家" in out               # repeat: whose turn, the score
    assert "拿走了 1 枚棋子；棋盘已清空" in out
    assert "move 1" not in out and "to move" not in out


def test_the_sim_says_fangqi_by_its_chinese_name(tmp_path):
    out = sim(tmp_path, "quit", layout="fangqi-7x7-matrix")
    assert "方棋：交叉点记作 a1.." in out
    assert "比分 25:24，轮到黑方" in out   # the counters in hand, Black first
    assert "布子阶段：轮到黑方；黑方 25 枚，白方 24 枚" in out   # the view's own status line


def run_trace_cli(tmp_path, text: str, *args: str) -> list[dict]:
    f = tmp_path / "game.trace"
    f.write_text(text)
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "trace", *args, str(f)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


# The first square closed by player 1's fourth side (h0.0, v0.0, h1.0, v0.1), after a takeback.
GAME = "place h0.0\nplace v0.0\nlift v0.0\nplace h1.0\nplace v0.0\nplace v0.1\n"


def test_a_trace_says_each_action_in_english_and_in_chinese(tmp_path):
    en = run_trace_cli(tmp_path, GAME)
    assert [r["said"] for r in en[:3]] == [
        ["player 1: the top groove of row one, square one"],
        ["player 2: the left groove of row one, square one"],
        ["takeback of the left groove of row one, square one"]]
    # the fourth side closes the square: the score changes, and is said
    assert en[-1]["said"] == ["player 2: the left groove of row one, square two",
                              "score 0 to 1"]
    zh = run_trace_cli(tmp_path, GAME, "--language", "zh")
    assert zh[0]["said"] == ["一号玩家：第一行第一格的上槽"]
    assert zh[2]["said"] == ["悔棋：第一行第一格的左槽"]
    assert [r["game"] for r in zh] == [r["game"] for r in en]   # the same game, other words


def test_site_names_as_a_person_says_them(tmp_path):
    from board_driver import views

    t = Tracer(sim_config(journal=str(tmp_path / "a.sqlite")))
    try:
        state = t.referee.state
        assert views.say_site(state, "h0.1") == "the top groove of row one, square two"
        assert views.say_site(state, "v2.3") == "the right groove of row three, square three"
        assert views.say_site(state, "h3.0") == "the bottom groove of row three, square one"
        assert views.say_site(state, "t1.2") == "the tree hole of row two, square three"
    finally:
        t.close()
    t = Tracer(sim_config(journal=str(tmp_path / "b.sqlite"), layout="arbos-8x8-matrix"))
    try:
        state = t.referee.state
        assert views.say_site(state, "C7") == "C seven"
        assert views.say_move_text(state, "seed L12") == "a seed at L twelve"
    finally:
        t.close()


def test_the_rules_reasons_in_chinese_with_their_words_translated():
    import pickle

    import games

    state = games.get_game("fangqi").new_state()
    state.play(state.parse_move("d4"))
    with pytest.raises(games.IllegalMove) as caught:
        state.play(state.parse_move("d4"))
    reason = caught.value.reason
    assert reason == "d4 is not vacant"          # the rules still say it in English
    assert pickle.loads(pickle.dumps(reason)).template == "{site} is not vacant"
    tp = games.get_game("tree-planting").new_state()
    tp.play(tp.parse_move("h0.0"))
    with pytest.raises(games.IllegalMove) as taken:
        tp.play(tp.parse_move("h0.0"))
    try:
        words.use("zh")
        assert words.reason(reason) == "d4 不是空点"
        assert words.reason(taken.value.reason) == "槽 h0.0 里已经有小棍了"
        # a field that is a word of the catalog is translated too
        assert words.reason(games.base.Reason("{site} holds no {colour} counter", site="c3",
                                              colour="black")) == "c3 上没有黑子"
        assert words.reason("text from elsewhere") == "text from elsewhere"
    finally:
        words.use("en")
    assert words.reason(reason) == "d4 is not vacant"


# --- a whole game of each game in Chinese: nothing it says is English ---------------------------

import re  # noqa: E402

import whole_games  # noqa: E402  (tests/board_driver/whole_games.py)
from board_driver import cli  # noqa: E402

#: A word of English: two letters or more in a row. Site names ("C 七", "B 三+1") keep one
#: letter; a notation or a message the catalogs missed has words.
ENGLISH = re.compile(r"[A-Za-z]{2,}")
CJK = re.compile(r"[\u4e00-\u9fff]")
#: The clocks: two minutes each and ten seconds a turn, so that the long waits after the first
#: move pass one minute and ten seconds left, and the game then plays on.
CLOCK = "2+10"


def said(tmp_path, game: str, lines: list[str], language: str, capsys) -> list[list[str]]:
    layout, options = whole_games.BOARDS[game]
    trace = tmp_path / f"{game}-{language}.trace"
    trace.write_text("\n".join(lines) + "\n")
    args = ["trace", "--layout", layout, "--time-control", CLOCK, "--language", language]
    for key, value in (options or {}).items():
        args += [f"--{key}", str(value)]
    capsys.readouterr()
    try:
        assert cli.main([*args, str(trace)]) == 0
    finally:
        words.use("en")
    return [json.loads(line)["said"] for line in capsys.readouterr().out.splitlines()]


@pytest.mark.parametrize("game", list(whole_games.BOARDS))
def test_a_whole_chinese_game_says_nothing_in_english(tmp_path, capsys, game):
    moves = whole_games.whole_game(game, str(tmp_path / "found.sqlite"))
    waits = ["wait 62000", "wait 50000"]   # the clock running: one minute left, ten seconds
    whole = moves[0] + waits + [a for m in moves[1:] for a in m]
    # and a second game whose clock runs out after the first move
    flagged = moves[0] + ["wait 200000"]
    runs = {lang: said(tmp_path, game, whole, lang, capsys) + said(tmp_path, game, flagged,
                                                                    lang, capsys)
            for lang in ("en", "zh")}
    en, zh = ([s for record in runs[lang] for s in record] for lang in ("en", "zh"))
    # Not vacuous: the English game says each kind of sentence this checks in Chinese.
    joined = "\n".join(en)
    for kind in ("one minute left", "10 seconds left", "game over", "wins on time"):
        assert kind in joined, (game, kind)
    from board_driver import views
    players = tuple(f"{name}: " for name in views.players(game))
    assert sum(s.startswith(players) for s in en) >= 2, (game, en[:5])   # the moves said
    # The same sentences, one for one, in the other language
    assert [len(r) for r in runs["zh"]] == [len(r) for r in runs["en"]]
    english = [s for s in zh if ENGLISH.search(s) or not CJK.search(s)]
    assert english == [], game


#: What the page's option help may keep as typed: the values a person writes in the form.
TYPED = {"true", "false", "draw", "counters", "random", "chosen", "classic"}


@pytest.mark.parametrize("game", list(whole_games.BOARDS))
def test_the_page_state_in_chinese_has_no_english_words(tmp_path, game):
    """The page's own sentences of each game in Chinese: the hint modes, the new game's option
    help, the seats' choices, the status and the result (the move list keeps its notation)."""
    from board_driver.web import snapshot

    moves = whole_games.whole_game(game, str(tmp_path / "found.sqlite"))
    t = Tracer(whole_games.config(game, str(tmp_path / "zh.sqlite"), language="zh"))
    try:
        for move in moves:
            for action in move:
                verb, *args = action.split()
                t.step(verb, args)
        with words.speaking("zh"):
            page = snapshot.page_state(t.referee, now=t.clock.now, layout_name="x", token_required=False,
                                       version=1, instance="i")
    finally:
        t.close()
        words.use("en")
    shown = {**{f"hint {k}": v for k, v in page["hint_words"].items()},
             **{f"option {k}": v for k, v in page["option_help"].items()},
             **{f"seat {k}": v for k, v in page["seat_labels"].items()},
             "result": page["result"], "title": page["title"]}
    assert page["result"] and len(shown) > 6
    # The move list and the takeback's question show the moves in the language too (each
    # move's notation stays where a program reads it: page["game"]["moves"]).
    moves_shown = [*page["move_words"], page["takeback_question"] or ""]
    assert [m for m in moves_shown if NOTATION_WORDS.search(m)] == [], game
    english = {k: v for k, v in shown.items()
               if not CJK.search(v) or set(w.lower() for w in re.findall(r"[A-Za-z]{3,}", v)) - TYPED}
    assert english == {}, game


def test_a_remote_conflict_in_chinese():
    import games
    from board_driver.remote import protocol

    state = games.get_game("tree-planting").new_state()
    state.play("h0.0")
    other = games.get_game("tree-planting").new_state()
    other.play("v0.0")
    msg = protocol.state_message(other, 0, 1)
    verdict = protocol.on_state(state, 0, msg, 1)
    assert verdict.conflict == "the boards disagree from move 1: here h0.0, there v0.0"
    with words.speaking("zh"):
        assert words.reason(verdict.conflict) == "两块棋盘从第 1 步起不一致：这里是 h0.0，那里是 v0.0"


def test_the_sim_in_chinese_says_its_clocks_and_its_menu(tmp_path):
    out = sim(tmp_path, "clock 5", "place a1", "place g7", "wait 2600", "lift a1", "lift g7",
              "legend", "quit", layout="fangqi-7x7-matrix")
    assert "clock 时限：设定棋钟" in out                       # the help's clock line
    assert "时限 5，立即生效" in out                            # what `clock 5` did
    assert "棋钟：黑方 5:00（计时中），白方 5:00" in out         # the clocks under the board
    assert "菜单：两人对弈，棋钟 不变，提示 安全；在亮着的位置放一枚棋子来选择" in out
    assert "菜单：已关闭" in out and "灯的含义（输入 legend 再看一遍）：" in out
    for english in ("time control", "clocks:", "(running)", "menu:", "the LEDs"):
        assert english not in out


# --- the moves as a Chinese screen shows them: the notation's words in the language ------------

#: The notation's own English words (Arbos `seed C7`, `pass`, `time`; Treeblox `end`; Game for
#: the Trees `stop:d2>f3`, `retreat:d5`): a Chinese screen shows them in Chinese.
NOTATION_WORDS = re.compile(r"\b(pass|end|seed|retreat|stop|time)\b", re.IGNORECASE)


def sim_lines(tmp_path, game: str, moves: list[list[str]], language: str) -> str:
    """What the sim's terminal writes for a whole game (its narrator's lines, the touch
    prompts, the drawings, `repeat` of every move), on the tracer's simulated clock."""
    from board_driver.cli.sim import Terminal

    out = io.StringIO()
    t = Tracer(whole_games.config(game, str(tmp_path / f"sim-{language}.sqlite"),
                                  language=language))
    try:
        term = Terminal(out, clock=t.clock)
        term.start(t.session)
        term.draw(t.session)
        for move in moves:
            for action in move:
                verb, *args = action.split()
                t.step(verb, args)
                term(t.session)
        term.repeat(t.session, len(moves))
    finally:
        t.close()
        words.use("en")
    return out.getvalue()


#: The notation words each game's English sim shows in a whole random game (so the Chinese
#: check is not vacuous).
SHOWN_IN_ENGLISH = {"arbos": {"seed"}, "treeblox": {"end"}}


@pytest.mark.parametrize("game", list(whole_games.BOARDS))
def test_a_whole_chinese_game_in_the_sim_shows_its_moves_in_chinese(tmp_path, game):
    moves = whole_games.whole_game(game, str(tmp_path / "found.sqlite"))
    en = sim_lines(tmp_path, game, moves, "en")
    found = {w.lower() for w in NOTATION_WORDS.findall(en)}
    assert SHOWN_IN_ENGLISH.get(game, set()) <= found, (game, found)
    zh = sim_lines(tmp_path, game, moves, "zh")
    assert "第 1 步：" in zh
    assert [line for line in zh.splitlines() if NOTATION_WORDS.search(line)] == [], game


def test_the_touch_prompts_show_moves_in_chinese(tmp_path):
    """Game for the Trees' selection offers a retreat (a hold) and stops: in the language."""
    t = Tracer(whole_games.config("game-for-the-trees", str(tmp_path / "t.sqlite"),
                                  language="zh"))
    try:
        state = t.referee.state
        prompts = []
        for move in sorted(state.legal_moves(), key=str):
            text = str(move)
            if text.startswith(("retreat:", "stop:")):
                src = text.split(":")[1][:2]
                t.step("tap", [src])
                prompts.append(t.referee.touch.words("game-for-the-trees"))
                t.step("tap", [src])   # cancel
        assert prompts, "no retreat or stop to select at the start"
        for said in prompts:
            assert "撤退" in said or "停" in said, said
            assert not NOTATION_WORDS.search(said), said
    finally:
        t.close()
        words.use("en")


def test_a_takeback_says_the_move_in_chinese(tmp_path):
    move = whole_games.whole_game("arbos", str(tmp_path / "found.sqlite"))[0]
    t = Tracer(whole_games.config("arbos", str(tmp_path / "a.sqlite"), language="zh"))
    try:
        for action in move:
            verb, *args = action.split()
            t.step(verb, args)
        assert str(t.referee.state.moves[0]).startswith("seed ")
        from board_driver.web.snapshot import takeback_question

        with words.speaking("zh"):    # the page's question before it acts
            assert takeback_question(t.moment()).startswith("悔棋 播种 ")
        done = t.door.takeback()
        assert done.startswith("已悔回 播种 "), done
    finally:
        t.close()
        words.use("en")


@pytest.mark.parametrize("game, notation, zh", [
    ("arbos", "seed C2", "播种 C2"), ("arbos", "pass", "停一手"), ("arbos", "time", "超时"),
    ("arbos", "C7=", "C7="), ("arbos", "xC7", "xC7"),
    ("treeblox", "end", "结束回合"), ("treeblox", "Lb2+1", "Lb2+1"),
    ("game-for-the-trees", "retreat:d5", "撤退 d5"),
    ("game-for-the-trees", "stop:d2>f3/d2>f3,g2>f3", "停 d2>f3/d2>f3,g2>f3"),
    ("game-for-the-trees", "Ab1-d2", "Ab1-d2"),
    ("fangqi", "d4-d7xf2", "d4-d7xf2"), ("tree-planting", "h0.1", "h0.1")])
def test_a_move_as_the_screen_shows_it(game, notation, zh):
    from board_driver import views

    assert views.show_move(game, notation) == notation       # English: the notation itself
    with words.speaking("zh"):
        assert views.show_move(game, notation) == zh
