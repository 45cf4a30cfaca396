"""app/jsontext: orjson where it can, json's results and errors where it cannot."""
from __future__ import annotations

import json
import math

import pytest

from app import jsontext


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, "é", null, true]}', '[]', '"x"', '{"a": {"a": 1}, "a": 2}'])
def test_loads_equals_json(text):
    assert jsontext.loads(text) == json.loads(text)


def test_what_orjson_refuses_is_read_by_json():
    assert math.isnan(jsontext.loads('{"x": NaN}')["x"])
    assert jsontext.loads("123456789012345678901234567890") == 123456789012345678901234567890


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
