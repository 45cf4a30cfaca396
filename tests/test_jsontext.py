"""app/jsontext: orjson where it can, json's results and errors where it cannot."""
from __future__ import annotations

import json
import math

import pytest

from app.traces import jsontext


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, "é", null, true]}', '[]', '"x"', '{"a": {"a": 1}, "a": 2}'])
def test_loads_equals_json(text):
    assert jsontext.loads(text) == json.loads(text)


def test_what_orjson_refuses_is_read_by_json():
    assert math.isnan(jsontext.loads('{"x": NaN}')["x"])
    assert jsontext.loads("123456789012345678901234567890") == 123456789012345678901234567890


@pytest.mark.parametrize("text", ['{"n": 18446744073709551616}', '[-99999999999999999999]', '{"é": 1234567890123456789012}',
                                  '{"\\ud800": 12345678901234567890}'])
def test_integers_beyond_64_bits_stay_exact(text):
    got = jsontext.loads(text)
    assert got == json.loads(text) and all(type(v) is int for v in (got.values() if isinstance(got, dict) else got))


def test_a_run_of_digits_is_found_only_in_ascii_digits():
    assert jsontext._long_digits("x" + "1" * 19) and jsontext._long_digits("é" + "9" * 19 + "é")
    assert not jsontext._long_digits("1" * 18 + "a" + "1" * 18)
    assert not jsontext._long_digits("\u0661" * 19)  # Arabic-Indic digits: never a JSON number
    assert not jsontext._long_digits("\ud800" + "1" * 5)  # a lone surrogate is no error


def test_errors_are_json_errors_with_json_messages():
    with pytest.raises(json.JSONDecodeError) as got:
        jsontext.loads('{"a": ')
    with pytest.raises(json.JSONDecodeError) as want:
        json.loads('{"a": ')
    assert (got.value.msg, got.value.pos) == (want.value.msg, want.value.pos)


def test_dumps_is_compact_json_keeping_text_and_falling_back():
    obj = {"agent": "Ü", "n": 1, 2: [1.5, None], "t": (1, 2), "o": object}
    text = jsontext.dumps(obj)
    assert json.loads(text) == json.loads(json.dumps(obj, ensure_ascii=False, default=str))
    assert "Ü" in text and ", " not in text
    big = {"n": 10 ** 30}  # beyond orjson: json writes it
    assert jsontext.dumps(big) == json.dumps(big, separators=(",", ":"))
    assert jsontext.dumps([float("nan")]) == "[null]"


def test_loads_each_reads_each_text_alone():
    big = "123456789012345678901234567890"
    texts = ['{"a": 1}', '{"a": ', "[1, 2]", "NaN", "1,2"]
    got = jsontext.loads_each(texts)
    assert got[0] == {"a": 1} and got[2] == [1, 2] and math.isnan(got[3])
    assert isinstance(got[1], ValueError) and isinstance(got[4], ValueError)
    # one text with a long digit run: that one is read by json (exact), the others as before
    got = jsontext.loads_each(texts[:1] + [f'{{"n": {big}}}'])
    assert got == [{"a": 1}, {"n": int(big)}] and type(got[1]["n"]) is int
    # a run is never made by joining two texts
    assert jsontext.loads_each(["1" * 10, "2" * 10]) == [int("1" * 10), int("2" * 10)]
    assert jsontext.loads_each([]) == []
