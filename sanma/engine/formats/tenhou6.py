"""tenhou.net/6 JSON game logs of three-player games: read them into recorded hands.

A tenhou.net/6 hand keeps per-seat arrays (haipai, draws, discards); this adapter
turns them into what our engine understands: a scripted ``Deal`` and the time-ordered
list of ``(seat, Action)`` the log implies, plus the recorded result.  The format is
described in ``shared/testdata/FORMAT.md`` section 1 and in ``docs/formats.md``.

Turn order is read by playing the hand on ``Kyoku``, handing it each wall tile as it is
drawn: after a discard the engine says which seats may call, and a seat whose next draws
entry is a call string taking that tile from the discarder calls it; otherwise the next
seat draws.  Only when a call now and the same call on a later discard are both legal is
each reading tried, on a copy, and the one that consumes the whole log kept.

The adapter is four modules, re-exported here: ``tenhou6_codes`` (tile codes, call strings,
constants, errors, payments in the log's terms), ``tenhou6_read`` (recorded values and the
reading in time order), ``tenhou6_write`` (export) and ``tenhou6_check`` (the replay check).
"""

from __future__ import annotations

from sanma.engine.formats.tenhou6_check import HandCheck as HandCheck
from sanma.engine.formats.tenhou6_check import check_game as check_game
from sanma.engine.formats.tenhou6_check import compare_result as compare_result
from sanma.engine.formats.tenhou6_check import replay_hand as replay_hand
from sanma.engine.formats.tenhou6_check import rules_for as rules_for
from sanma.engine.formats.tenhou6_check import start_kyoku as start_kyoku
from sanma.engine.formats.tenhou6_codes import DAIMINKAN_PLACEHOLDER as DAIMINKAN_PLACEHOLDER
from sanma.engine.formats.tenhou6_codes import HAND_LENGTH as HAND_LENGTH
from sanma.engine.formats.tenhou6_codes import KITA_CODE as KITA_CODE
from sanma.engine.formats.tenhou6_codes import TSUMOGIRI as TSUMOGIRI
from sanma.engine.formats.tenhou6_codes import CallString as CallString
from sanma.engine.formats.tenhou6_codes import Outcome as Outcome
from sanma.engine.formats.tenhou6_codes import RecordedPayment as RecordedPayment
from sanma.engine.formats.tenhou6_codes import TenhouLogError as TenhouLogError
from sanma.engine.formats.tenhou6_codes import call_from_seat as call_from_seat
from sanma.engine.formats.tenhou6_codes import call_offset as call_offset
from sanma.engine.formats.tenhou6_codes import code_to_kind as code_to_kind
from sanma.engine.formats.tenhou6_codes import kind_to_code as kind_to_code
from sanma.engine.formats.tenhou6_codes import parse_call as parse_call
from sanma.engine.formats.tenhou6_codes import tile_code as tile_code
from sanma.engine.formats.tenhou6_read import RecordedGame as RecordedGame
from sanma.engine.formats.tenhou6_read import RecordedHand as RecordedHand
from sanma.engine.formats.tenhou6_read import RecordedResult as RecordedResult
from sanma.engine.formats.tenhou6_read import RecordedWin as RecordedWin
from sanma.engine.formats.tenhou6_read import four_player_reason as four_player_reason
from sanma.engine.formats.tenhou6_read import hand_tiles as hand_tiles
from sanma.engine.formats.tenhou6_read import loads as loads
from sanma.engine.formats.tenhou6_read import parse_game as parse_game
from sanma.engine.formats.tenhou6_read import parse_hand as parse_hand
from sanma.engine.formats.tenhou6_read import preset_for_rule_name as preset_for_rule_name
from sanma.engine.formats.tenhou6_write import export_game as export_game
from sanma.engine.formats.tenhou6_write import export_hand as export_hand
from sanma.engine.formats.tenhou6_write import meld_string as meld_string
from sanma.engine.formats.tenhou6_write import points_text as points_text
from sanma.engine.formats.tenhou6_write import rule_name_for as rule_name_for
from sanma.engine.formats.tenhou6_write import split_hands as split_hands
from sanma.engine.formats.tenhou6_write import yaku_texts as yaku_texts
