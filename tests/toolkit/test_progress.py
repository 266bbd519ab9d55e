"""Progress bars: redrawn on a terminal, one summary line in a log."""

from __future__ import annotations

import io
import re

import pytest

from toolkit.commands import progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_the_bar_is_one_summary_line(capsys: pytest.CaptureFixture[str]) -> None:
    with progress(4096, "shards") as bar:
        for _ in range(4096):
            bar.update(1)
    err = capsys.readouterr().err
    assert re.fullmatch(r"shards: 4,096 of 4,096 in \d+\.\ds\n", err), err


def test_an_unknown_total_is_summed_without_one(capsys: pytest.CaptureFixture[str]) -> None:
    with progress(0, "keys rewritten") as bar:
        bar.update(3)
        bar.update(4)
    assert re.fullmatch(r"keys rewritten: 7 in \d+\.\ds\n", capsys.readouterr().err)


def test_a_hidden_bar_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with progress(10, "pinners", enabled=False) as bar:
        bar.update(10)
    assert capsys.readouterr().err == ""


def test_on_a_terminal_the_bar_is_drawn_and_cleared_without_a_summary(
        monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with progress(2, "pinners") as bar:
        bar.update(2)
    drawn = terminal.getvalue()
    assert "pinners" in drawn and "\r" in drawn
    assert not re.search(r"pinners: 2 of 2 in", drawn)
