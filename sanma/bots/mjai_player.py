"""``MjaiPlayer``: an external mjai bot (a subprocess) in one of our seats.

The seat's events go to the bot's standard input as mjai lines (``mjai-3p.md``, per-event
framing); the bot writes one line for every line.  Lines are sent in a batch when the seat
must decide, and the answer to the last one is the decision, mapped to our ``Action``
with the seat's exact copies.  A riichi takes two exchanges, as in mjai: the bot answers
``reach``, we echo ``{"type":"reach"}`` and its next answer is the discard.

A bot can never stop a match: an answer that is not JSON, names no possible action, comes
after ``timeout_s`` or never comes (the bot died) makes ``decide`` raise, and ``ask`` plays
the default action; an illegal one is returned as it is so that ``ask`` counts it as
illegal.  ``counts`` tallies what happened.  ``close()`` ends the process.
"""

from __future__ import annotations

import contextlib
import json
import queue
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Sequence
from typing import IO, Any

from sanma.bots.base import Player
from sanma.engine.actions import Action, Discard
from sanma.engine.events import Event, TileDiscarded
from sanma.engine.formats.mjai import (
    REACH,
    MjaiError,
    MjaiEvent,
    MjaiWriter,
    Reach,
    answer_for,
    parse_answer,
    tile_to_mjai,
)
from sanma.engine.kyoku import LegalActions

DEFAULT_TIMEOUT_S = 10.0
_EOF = None  # what the reader thread queues when the bot's output ends


class MjaiTimeout(MjaiError):
    """The bot did not answer in time (or its process ended)."""


class MjaiPlayer(Player):
    """Runs ``command`` (an mjai bot) and plays its answers for ``seat``."""

    name = "mjai"

    def __init__(
        self,
        seat: int,
        seed: int = 0,
        *,
        command: Sequence[str],
        timeout_s: float = DEFAULT_TIMEOUT_S,
        possible_actions: bool = False,
        stderr: int | IO[Any] | None = subprocess.DEVNULL,
    ) -> None:
        super().__init__(seat, seed)
        self.command = list(command)
        self.timeout_s = timeout_s
        self.possible_actions = possible_actions
        self.counts: Counter[str] = Counter()
        self._writer = MjaiWriter()
        self._outbox: list[MjaiEvent] = []
        self._sent = 0
        self._received = 0
        self._reach_echoed = False
        self._answers: queue.Queue[str | None] = queue.Queue()
        self._proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._reader = threading.Thread(target=self._read_answers, name=f"mjai-seat{seat}", daemon=True)
        self._reader.start()

    # -- the bot's output --------------------------------------------------------------------

    def _read_answers(self) -> None:
        stdout = self._proc.stdout
        assert stdout is not None
        try:
            for line in stdout:
                self._answers.put(line)
        except (OSError, ValueError):  # the pipe closed under us at close()
            pass
        self._answers.put(_EOF)

    def _exchange(self, objs: list[MjaiEvent]) -> str:
        """Send ``objs`` and return the answer to the last one (older answers are dropped)."""
        stdin = self._proc.stdin
        assert stdin is not None
        try:
            for obj in objs:
                stdin.write(json.dumps(obj, separators=(",", ":")) + "\n")
                self._sent += 1
            stdin.flush()
        except (OSError, ValueError) as exc:
            raise MjaiTimeout(f"the bot's input is closed ({exc})") from exc
        deadline = time.monotonic() + self.timeout_s
        last = ""
        while self._received < self._sent:
            try:
                line = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.counts["late"] += 1
                raise MjaiTimeout(f"no answer within {self.timeout_s:.1f}s") from None
            if line is _EOF:
                self.counts["dead"] += 1
                self._answers.put(_EOF)  # every later wait fails at once too
                raise MjaiTimeout("the bot's process ended")
            assert line is not None
            self._received += 1
            last = line
        return last

    # -- Player ------------------------------------------------------------------------------

    def observe(self, event: Event) -> None:
        """Queue the seat's event as mjai lines (sent at the next decision or at close)."""
        super().observe(event)
        lines = self._writer.write(event)
        if isinstance(event, TileDiscarded) and event.seat == self.seat:
            if event.riichi and self._reach_echoed and lines and lines[0]["type"] == "reach":
                lines = lines[1:]  # the bot has seen its own reach already
            self._reach_echoed = False
        self._outbox += lines

    def decide(self, legal: LegalActions) -> Action:
        """The bot's answer to the events since its last decision, as our action."""
        if not self._outbox:
            raise MjaiError("nothing new to show the bot")
        objs, self._outbox = self._outbox, []
        if self.possible_actions:
            objs[-1] = {**objs[-1], "possible_actions": self._possible(legal)}
        parsed = self._parse(self._exchange(objs))
        if isinstance(parsed, Reach):
            if not any(isinstance(a, Discard) and a.riichi for a in legal):
                self.counts["illegal"] += 1
                raise MjaiError("reach answered where riichi is not legal")
            echo: MjaiEvent = {"type": "reach", "actor": self.seat}
            if self.possible_actions:
                echo["possible_actions"] = [
                    self._answer(Discard(a.tile)) for a in legal if isinstance(a, Discard) and a.riichi
                ]
            self._reach_echoed = True
            parsed = self._parse(self._exchange([echo]), riichi=True)
            if not isinstance(parsed, Discard):
                self.counts["malformed"] += 1
                raise MjaiError(f"after reach the bot must discard, not {parsed}")
        assert not isinstance(parsed, Reach)
        if isinstance(parsed, Discard) and parsed not in legal:
            parsed = self._same_name_copy(parsed, legal)
        self.counts["ok" if parsed in legal else "illegal"] += 1
        return parsed

    def _same_name_copy(self, discard: Discard, legal: LegalActions) -> Discard:
        """Another copy of the same name when that one is legal: ``tsumogiri`` only tells
        the others which copy went (spec section 4), so a riichi hand that names its drawn
        tile without the flag still discards it."""
        name = tile_to_mjai(discard.tile, self._red_fives())
        drawn = self.view.drawn
        copies = sorted(self.view.hand, key=lambda t: t != drawn)
        for tile in copies:
            if tile_to_mjai(tile, self._red_fives()) == name and Discard(tile, discard.riichi) in legal:
                return Discard(tile, discard.riichi)
        return discard

    def _red_fives(self) -> bool:
        return self.view.rules.red_fives if self.view.rules is not None else True

    def _parse(self, line: str, riichi: bool = False) -> Action | Reach:
        try:
            return parse_answer(json.loads(line), self.seat, self.view, riichi=riichi)
        except (json.JSONDecodeError, MjaiError) as exc:
            self.counts["malformed"] += 1
            raise MjaiError(f"bad answer {line.strip()[:200]!r}: {exc}") from exc

    def _answer(self, action: Action | Reach) -> MjaiEvent:
        cue = self.view.cue
        offer = (cue.seat, cue.tile) if cue is not None and cue.tile is not None else None
        return answer_for(action, self.seat, self.view, offer)

    def _possible(self, legal: LegalActions) -> list[MjaiEvent]:
        out: list[MjaiEvent] = []
        for action in legal:
            item = self._answer(REACH if isinstance(action, Discard) and action.riichi else action)
            item.pop("target", None)
            item.pop("tsumogiri", None)
            if item not in out:
                out.append(item)
        for item in out:
            item.setdefault("actor", self.seat)
        return out

    def close(self) -> None:
        """Send what is left, close the bot's input and end the process."""
        stdin = self._proc.stdin
        if stdin is not None:
            try:
                if self._proc.poll() is None:
                    for obj in self._outbox:
                        stdin.write(json.dumps(obj, separators=(",", ":")) + "\n")
                stdin.close()
            except (OSError, ValueError):
                # A dead bot leaves unflushed bytes behind; drop them so the pipe can close.
                with contextlib.suppress(OSError, ValueError):
                    stdin.close()
            self._outbox = []
        try:
            self._proc.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(timeout=2.0)  # the process has ended, so its output is at EOF
        if self._proc.stdout is not None and not self._reader.is_alive():
            self._proc.stdout.close()
