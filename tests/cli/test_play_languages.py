"""``slimetrail play`` in Portuguese and Korean: every sentence a player reads, the boards'
legends and the refusals included, comes from the catalogues; the language is ``--lang`` or
the terminal's."""

from __future__ import annotations

import io
import random

import pytest
from clitools import run_cli
from web.english import english_left

from slimetrail.cli.play import Seat, TerminalGame
from slimetrail.core.game import outcome_sentence, untranslated
from slimetrail.core.registry import get_game
from slimetrail.i18n import from_environment, gettext, speaking

# The commands are typed as these words in every language (the help says what each does).
COMMAND_WORDS = ["board", "help", "hint", "moves", "quit", "undo"]


def session(lang: str, state, seats, script: str) -> str:
    out = io.StringIO()
    with speaking(lang):
        game = TerminalGame(state, seats, 1, 0.2, stdin=io.StringIO(script), stdout=out)
        assert game.play() == 0
    return out.getvalue()


def english_in(text: str, lang: str, spec: str) -> list[str]:
    """English words in ``text``, besides the commands and the game's ``spec`` (what one
    types after ``--game``)."""
    left = english_left(text.replace(spec, ""), lang)
    return [word for word in left if word not in COMMAND_WORDS]


def test_a_slither_game_in_portuguese_says_nothing_in_english() -> None:
    state = get_game("slither", size=5).new_state()
    script = "zz\nmoves\nhelp\nhint\nd4\nundo\nboard\n\nd4\nswap\nquit\n"
    text = session("pt", state, [Seat(), Seat()], script)
    assert english_in(text, "pt", state.game.spec) == []
    assert "Jogadores: 1 Preto (humano); 2 Branco (humano)." in text
    assert "Jogada inválida: 'zz' não é uma jogada de Slither" in text
    assert "Jogadas legais: a1 b1 c1" in text
    assert "Comandos:\n  <jogada>" in text and "  undo                   anular" in text
    assert "Sugestão: " in text and "Jogada anulada." in text
    assert "X Preto (jogador 1, de baixo para cima), O Branco (jogador 2, da esquerda" in text
    # The swap renames the players after their colours, in the language.
    assert "Agora jogam: jogador 1 Branco e jogador 2 Preto." in text
    assert "X Preto (jogador 2, de baixo para cima)" in text
    assert text.rstrip().endswith("Joga Branco> Adeus.")


def test_a_snake_pit_game_in_korean_says_nothing_in_english() -> None:
    state = get_game("snake-pit").new_state()
    text = session("ko", state, [Seat(), Seat(1), Seat(1)], "z9\nb9-b8\nundo\nhelp\nquit\n")
    assert english_in(text, "ko", state.game.spec) == []
    assert "플레이어: 1 초록 (사람); 2 파랑 (컴퓨터, 레벨 1); 3 빨강 (컴퓨터, 레벨 1)." in text
    assert "초록 차례: 뱀 1마리" in text  # the board's status line
    assert "파랑 (컴퓨터): " in text  # a computer's move, named (two computers play)
    assert "수를 물렀습니다." in text and "명령:" in text
    assert "초록 (나) 차례> 둘 수 없는 수: " in text


def test_the_end_of_a_game_in_each_language() -> None:
    rng = random.Random(7)
    game = get_game("slimetrail")
    while True:  # a short random game of 7x7 Rastros, typed by two humans
        state, moves = game.new_state(), []
        while not state.is_over() and len(moves) < 12:
            move = rng.choice(state.legal_moves())
            moves.append(state.move_str(move))
            state.push(move)
        if state.is_over():
            break
    outcome = state.outcome()
    assert outcome is not None
    for lang, over in (("pt", "Fim do jogo. "), ("ko", "게임 끝. ")):
        text = session(lang, game.new_state(), [Seat(), Seat()], "\n".join(moves) + "\n")
        with speaking(lang):
            names = [gettext(name) for name in game.player_names]
        with speaking(lang):
            ending = outcome_sentence(game, outcome, names, gettext)
        assert ending != outcome_sentence(game, outcome, list(game.player_names), untranslated)
        assert text.rstrip().endswith(over + ending)
        assert english_in(text, lang, game.spec) == []


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({"LANG": "pt_BR.UTF-8"}, "pt"),
        ({"LANGUAGE": "de:ko", "LANG": "pt_PT.UTF-8"}, "ko"),
        ({"LANGUAGE": "de", "LANG": "ko_KR.UTF-8"}, "en"),  # the first set variable decides
        ({"LC_ALL": "C", "LANG": "ko_KR.UTF-8"}, "en"),
        ({"LC_MESSAGES": "ko_KR"}, "ko"),
        ({}, "en"),
    ],
)
def test_the_terminal_s_language_is_read_as_gettext_reads_it(environ, lang) -> None:
    assert from_environment(environ) == lang


def test_the_command_line_speaks_the_terminal_s_language_or_lang(monkeypatch) -> None:
    monkeypatch.setenv("LANGUAGE", "pt")
    seats = ("--game", "toy-three", "--seats", "human,robot,human")
    proc = run_cli("play", *seats)
    assert proc.returncode == 2
    assert "--seats: 'robot' não é human, computer nem computer:NÍVEL" in proc.stderr
    proc = run_cli("play", "--lang", "ko", *seats)
    assert "'robot'은(는) human, computer, computer:레벨 중 하나가 아닙니다" in proc.stderr
    proc = run_cli("play", "--lang", "en", *seats)
    assert "'robot' is not human, computer or computer:LEVEL" in proc.stderr
    proc = run_cli("play", "--game", "slimetrail", "--hotseat", stdin="zz9\nd5\nquit\n")
    assert proc.returncode == 0, proc.stderr
    assert "Jogada inválida: 'zz9' não é uma casa do tabuleiro 7x7 nem uma direção" in proc.stdout
    assert "Joga Vermelho." in proc.stdout and proc.stdout.rstrip().endswith("Adeus.")
