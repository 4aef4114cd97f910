"""A record that does not import, told in the importer's language and still naming what was
wrong -- the line, the move, the key (issue 25)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from slimetrail.core.registry import GAMES
from tests.web.english import english_left

ILLEGAL = '[Game "slimetrail"]\n\n1. c3 c4 2. a7 *\n'
UNKNOWN_GAME = '[Game "xiangqi"]\n\n1. e4 *\n'
BAD_PLACES = '{"game": "snake-pit", "moves": [], "result": "1-0-0", "places": "first"}'


def refusal(client: TestClient, record: str, lang: str) -> str:
    answer = client.post("/api/import", params={"lang": lang}, json={"record": record})
    assert answer.status_code == 400, answer.text
    return answer.json()["detail"]


@pytest.mark.parametrize(
    ("lang", "record", "said"),
    [
        ("pt", "{", "linha 1: JSON inválido: esperava-se um nome de propriedade entre aspas"),
        ("ko", "{", "1번째 줄: 올바른 JSON이 아닙니다: 큰따옴표로 감싼 속성 이름이 있어야 합니다"),
        ("pt", UNKNOWN_GAME, "linha 1: jogo desconhecido 'xiangqi' (jogos: slimetrail,"),
        ("ko", UNKNOWN_GAME, "1번째 줄: 알 수 없는 게임 'xiangqi' (게임: slimetrail,"),
        ("pt", ILLEGAL, "linha 3, jogada 3 (a7): "),
        ("ko", ILLEGAL, "3번째 줄, 3수 (a7): "),
        ("pt", BAD_PLACES, '"places" tem de ser uma lista de lugares, um por jogador'),
        ("ko", BAD_PLACES, '"places"는 플레이어마다 하나씩인 순위의 목록이어야 합니다'),
    ],
)
def test_a_malformed_record_is_refused_in_the_language(
    client: TestClient, lang: str, record: str, said: str
) -> None:
    detail = refusal(client, record, lang)
    assert detail.startswith(said)
    # What the record said ('xiangqi') and the game ids listed after it are no English.
    quoted = re.sub(r"'[^']*'", "", detail.replace(", ".join(GAMES), ""))
    assert english_left(quoted, lang) == []


def test_the_command_line_keeps_english(tmp_path: Path) -> None:
    path = tmp_path / "bad.pgn"
    path.write_text(ILLEGAL)
    run = subprocess.run(
        [sys.executable, "-m", "slimetrail", "record", "check", str(path)],
        capture_output=True,
        text=True,
        env=os.environ | {"LANG": "pt_PT.UTF-8", "LANGUAGE": "pt"},
    )
    assert run.returncode != 0
    assert "line 3, move 3 (a7): " in run.stdout + run.stderr
